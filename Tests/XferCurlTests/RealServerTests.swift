import Foundation
import Synchronization
import Testing
import XferFixtures
import XferCurl

/// The engine against servers we did not write. Serialized: each starts a daemon.
@Suite("Engine: real servers", .serialized)
struct RealServerTests {
    func withEngine(_ body: (TransferEngine, URL) async throws -> Void) async throws {
        let engine = try TransferEngine()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-real-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try await body(engine, scratch)
        } catch {
            await engine.shutdown()
            throw error
        }
        await engine.shutdown()
    }

    func download(_ engine: TransferEngine, _ url: String, to path: String, request: (inout TransferRequest) -> Void = { _ in },
                  existing: [UInt8] = []) async throws -> TransferOutcome {
        _ = FileManager.default.createFile(atPath: path, contents: Data(existing))
        let fd = open(path, O_WRONLY)
        defer { close(fd) }
        var r = TransferRequest(url: url, destination: .file(descriptor: fd, offset: Int64(existing.count)))
        request(&r)
        return try await engine.perform(r, progress: TransferProgress())
    }

    /// `content` as `name` on a real FTP or SFTP server (`scheme`), an engine, and the local
    /// path to download it to; nothing runs when the server's package is not installed.
    func withRemoteFile(_ scheme: String, _ name: String, _ content: [UInt8],
                        _ body: (TransferEngine, DatedRemoteFile, String) async throws -> Void) async throws {
        guard let remote = try DatedRemoteFile(scheme, name, content) else { return }
        defer { remote.server.stop() }
        try await withEngine { engine, scratch in
            try await body(engine, remote, scratch.appendingPathComponent(name).path)
        }
    }

    func read(_ path: String) -> [UInt8] { FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? [] }

    /// The cap holds against nginx on loopback, to within what a quiet cap lets through at
    /// once (a twentieth of a second's worth) and one chunk. libcurl's own limit let the
    /// first 1.6 MB through unpaced (100 reads of 16 KiB in one pass): 1.84 s. A lower
    /// bound only: a slow machine can only add.
    @Test func aRateLimitHoldsAgainstAFastServer() async throws {
        guard let nginx = try RealServer.nginx() else { return }
        defer { nginx.stop() }
        let content = EngineTesting.bytes(20_000_000)
        try nginx.write("www/limited.bin", content)
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("limited.bin").path
            let started = ContinuousClock.now
            _ = try await download(engine, "http://127.0.0.1:\(nginx.port)/limited.bin", to: file) { $0.options.bandwidth = SharedBandwidth(bytesPerSecond: 10_000_000) }
            let elapsed = ContinuousClock.now - started
            #expect(read(file) == content)
            #expect(elapsed >= .seconds(1.9), "20 MB at 10 MB/s took \(elapsed)")
        }
    }

    /// The cap pauses and releases FTP and SFTP transfers as it does HTTP ones (libcurl
    /// keeps the refused chunk and hands it over again, or asks the read callback again):
    /// the file arrives whole, at the cap, both ways.
    @Test(arguments: ["ftp", "sftp"])
    func aCappedFTPOrSFTPTransferKeepsToTheCapAndArrivesWhole(scheme: String) async throws {
        let content = EngineTesting.bytes(1_000_000)
        try await withRemoteFile(scheme, "capped.bin", content) { engine, remote, file in
            let url = remote.url, settings = remote.settings
            let started = ContinuousClock.now
            _ = try await download(engine, url, to: file) { r in
                settings(&r)
                r.options.bandwidth = SharedBandwidth(bytesPerSecond: 400_000)
            }
            let elapsed = ContinuousClock.now - started
            let whole = read(file) == content  // compared outside #expect: its diff of 1 MB arrays takes minutes
            #expect(whole)
            #expect(elapsed >= .seconds(2.3), "1 MB at 400 KB/s took \(elapsed)")

            let target = DatedRemoteFile.location(of: "capped-up.bin", scheme: scheme, on: remote.server)
            var upload = TransferRequest(url: target.url, method: .put, body: .file(path: file, contentType: nil))
            settings(&upload)
            upload.options.bandwidth = SharedBandwidth(bytesPerSecond: 400_000)
            let sending = ContinuousClock.now
            _ = try await engine.perform(upload, progress: TransferProgress())
            let sent = ContinuousClock.now - sending
            let arrived = read(target.path) == content
            #expect(arrived)
            #expect(sent >= .seconds(2.2), "1 MB sent at 400 KB/s took \(sent)")
        }
    }

    /// A download whose digest reader falls behind waits for it by libcurl's pause, which
    /// FTP and SFTP honour as HTTP does (`file:` cannot, see `WrittenChunksTests`): every
    /// gathered write is lent, and the file arrives whole.
    @Test(arguments: ["ftp", "sftp"])
    func anFTPOrSFTPDownloadWaitsForASlowDigestReader(scheme: String) async throws {
        let content = EngineTesting.bytes(3_000_000)
        try await withRemoteFile(scheme, "followed.bin", content) { engine, remote, file in
            let url = remote.url, settings = remote.settings
            let (_, seen) = try await WrittenChunksTests.withReader(hold: { _ in .micros(2_000) }) { chunks in
                try await download(engine, url, to: file) { r in
                    settings(&r)
                    r.writtenChunks = chunks
                }
            }
            let whole = read(file) == content  // compared outside #expect: its diff of large arrays takes minutes
            #expect(whole)
            let end = WrittenChunksTests.checkConsecutive(seen, of: content)
            #expect(end >= content.count - 256 * 1024)
        }
    }

    @Test func nginxServesRangesAndAcceptsPut() async throws {
        guard let nginx = try RealServer.nginx() else { return }
        defer { nginx.stop() }
        let content = EngineTesting.bytes(2_000_000)
        try nginx.write("www/big.bin", content)
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("big.bin").path
            let whole = try await download(engine, "http://127.0.0.1:\(nginx.port)/big.bin", to: file)
            #expect(whole.status == 200)
            #expect(read(file) == content)
            let resumed = try await download(engine, "http://127.0.0.1:\(nginx.port)/big.bin", to: file,
                                             request: { $0.resumeFrom = 1_234_567; $0.ifRange = whole.etag },
                                             existing: Array(content[..<1_234_567]))
            #expect(resumed.status == 206)
            #expect(resumed.resumed)
            #expect(read(file) == content)

            let source = scratch.appendingPathComponent("up.bin").path
            _ = FileManager.default.createFile(atPath: source, contents: Data(content))
            let put = try await engine.perform(TransferRequest(url: "http://127.0.0.1:\(nginx.port)/dav/in/up.bin", method: .put,
                                                               body: .file(path: source, contentType: nil)), progress: TransferProgress())
            #expect(put.status == 201)
            #expect(read(nginx.path("www/dav/in/up.bin")) == content)
        }
    }

    @Test func nginxAnswersACompletePartialWith416AndTheEngineCallsItDone() async throws {
        guard let nginx = try RealServer.nginx() else { return }
        defer { nginx.stop() }
        let content = EngineTesting.bytes(100_000)
        try nginx.write("www/done.bin", content)
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("done.bin").path
            let whole = try await download(engine, "http://127.0.0.1:\(nginx.port)/done.bin", to: file)
            let again = try await download(engine, "http://127.0.0.1:\(nginx.port)/done.bin", to: file,
                                           request: { $0.resumeFrom = 100_000; $0.ifRange = whole.etag }, existing: content)
            #expect(again.status == 416)
            #expect(again.resumed)
            #expect(again.bytesTransferred == 0)
            #expect(read(file) == content, "nginx's 416 page is not written into the file")
        }
    }

    @Test func ftpsDownloadsVerifyingTheServersCertificate() async throws {
        guard let ftps = try RealServer.vsftpd(tls: .implicit) else { return }
        defer { ftps.stop() }
        let content = EngineTesting.bytes(300_000)
        try ftps.write("ftp/pub/s.bin", content)
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("s.bin").path
            let url = "ftps://127.0.0.1:\(ftps.port)/pub/s.bin"
            _ = try await download(engine, url, to: file) { $0.options.caFile = ftps.path("cert.pem") }
            #expect(read(file) == content)
            // Without the CA that signed it, the self-signed certificate is refused.
            await #expect {
                _ = try await download(engine, url, to: file)
            } throws: { ($0 as? TransferError)?.kind == .permanent && ($0 as? TransferError)?.code == "CURLE_PEER_FAILED_VERIFICATION" }
        }
    }

    /// Explicit TLS (AUTH TLS on the FTP port), what most FTP servers that encrypt offer
    /// today: required when asked for, so neither a server that only speaks plain FTP nor
    /// one stripped of TLS on the way gets the login in clear.
    @Test func explicitFTPSIsUsedAndRequiredWhenAskedFor() async throws {
        guard let ftpes = try RealServer.vsftpd(tls: .explicit), let plain = try RealServer.vsftpd() else { return }
        defer { ftpes.stop(); plain.stop() }
        let content = EngineTesting.bytes(300_000)
        try ftpes.write("ftp/pub/e.bin", content)
        try plain.write("ftp/pub/e.bin", content)
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("e.bin").path
            let url = "ftp://127.0.0.1:\(ftpes.port)/pub/e.bin"
            _ = try await download(engine, url, to: file) {
                $0.options.requireFTPTLS = true
                $0.options.caFile = ftpes.path("cert.pem")
            }
            #expect(read(file).count == content.count)
            // Without TLS this server refuses the login.
            await #expect { _ = try await download(engine, url, to: file) } throws: { ($0 as? TransferError)?.code == "CURLE_LOGIN_DENIED" }
            // A server without TLS is refused before the login.
            await #expect {
                _ = try await download(engine, "ftp://127.0.0.1:\(plain.port)/pub/e.bin", to: file) { $0.options.requireFTPTLS = true }
            } throws: { ($0 as? TransferError)?.kind == .permanent && ($0 as? TransferError)?.code == "CURLE_USE_SSL_FAILED" }
        }
    }

    /// vsftpd refuses a connection beyond `max_per_ip` with 421, which libcurl reports as a
    /// timeout ("We got a 421 - timeout"; the log said `CURLE_OPERATION_TIMEDOUT: Timeout
    /// was reached` at 0.00 s): it is named for what it is, for the run to take fewer at once.
    @Test func anFTPServerRefusingOneMoreConnectionIsNamedForIt() async throws {
        guard let ftp = try RealServer.vsftpd(maxPerIP: 1) else { return }
        defer { ftp.stop() }
        try ftp.write("ftp/pub/g.bin", [1, 2, 3])
        let held = try #require(ftp.connection())
        defer { close(held) }
        var banner = [UInt8](repeating: 0, count: 64)
        #expect(Glibc.read(held, &banner, banner.count) > 0, "vsftpd counts the held connection once it greets it")
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("g.bin").path
            await #expect { _ = try await download(engine, "ftp://127.0.0.1:\(ftp.port)/pub/g.bin", to: file) } throws: {
                let error = $0 as? TransferError
                return error?.code == TransferError.tooManyConnections && error?.kind == .transient
                    && error?.message.contains("421: too many connections from this address") == true
            }
        }
    }

    @Test func ftpDownloadsResumesAndUploadsIntoNewFolders() async throws {
        guard let ftp = try RealServer.vsftpd() else { return }
        defer { ftp.stop() }
        let content = EngineTesting.bytes(500_000)
        try ftp.write("ftp/pub/f.bin", content)
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("f.bin").path
            _ = try await download(engine, "ftp://127.0.0.1:\(ftp.port)/pub/f.bin", to: file)
            #expect(read(file) == content)
            let resumed = try await download(engine, "ftp://127.0.0.1:\(ftp.port)/pub/f.bin", to: file,
                                             request: { $0.resumeFrom = 100_000 }, existing: Array(content[..<100_000]))
            #expect(resumed.resumed)
            #expect(read(file) == content)

            let source = scratch.appendingPathComponent("up.bin").path
            _ = FileManager.default.createFile(atPath: source, contents: Data(content))
            var upload = TransferRequest(url: "ftp://127.0.0.1:\(ftp.port)/pub/new/dir/up.bin", method: .put,
                                         body: .file(path: source, contentType: nil))
            upload.options.createMissingDirectories = true
            _ = try await engine.perform(upload, progress: TransferProgress())
            #expect(read(ftp.path("ftp/pub/new/dir/up.bin")) == content)

            await #expect {
                _ = try await download(engine, "ftp://127.0.0.1:\(ftp.port)/pub/missing.bin", to: file)
            } throws: { ($0 as? TransferError)?.kind == .permanent }
        }
    }

    /// FTP sends no headers; libcurl learns the size with SIZE. The response callback gets
    /// it as `content-length`, so a caller can weigh the body before it lands (disk space).
    @Test func anFTPFilesSizeReachesTheResponseCallbackAsItsContentLength() async throws {
        guard let ftp = try RealServer.vsftpd() else { return }
        defer { ftp.stop() }
        try ftp.write("ftp/pub/s.bin", EngineTesting.bytes(300_000))
        try await withEngine { engine, scratch in
            let announced = Mutex<[String?]>([])
            for resume in [0, 100_000] {
                _ = try await download(engine, "ftp://127.0.0.1:\(ftp.port)/pub/s.bin", to: scratch.appendingPathComponent("s.bin").path,
                                       request: { r in
                                           if resume > 0 { r.resumeFrom = Int64(resume) }
                                           r.onResponse = { _, headers in announced.withLock { $0.append(headers["content-length"]) }; return nil }
                                       }, existing: Array(EngineTesting.bytes(300_000)[..<resume]))
            }
            #expect(announced.withLock { $0 } == ["300000", nil], "the whole file's size; a resumed one's would be what is left")
        }
    }

    @Test func sftpChecksTheHostKeyAndTransfersBothWays() async throws {
        guard let sshd = try RealServer.sshd() else { return }
        defer { sshd.stop() }
        let content = EngineTesting.bytes(300_000)
        try sshd.write("sftp/f.bin", content)
        let user = ProcessInfo.processInfo.environment["USER"] ?? "root"
        func configure(_ r: inout TransferRequest, knownHosts: String) {
            r.auth = .basic(user: user, password: "")
            r.options.sshPrivateKey = sshd.path("client_key")
            r.options.sshKnownHosts = knownHosts
        }
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("f.bin").path
            _ = try await download(engine, "sftp://127.0.0.1:\(sshd.port)\(sshd.path("sftp/f.bin"))", to: file) {
                configure(&$0, knownHosts: sshd.path("known_hosts"))
            }
            #expect(read(file) == content)

            var upload = TransferRequest(url: "sftp://127.0.0.1:\(sshd.port)\(sshd.path("sftp/in/up.bin"))", method: .put,
                                         body: .file(path: file, contentType: nil))
            configure(&upload, knownHosts: sshd.path("known_hosts"))
            upload.options.createMissingDirectories = true
            _ = try await engine.perform(upload, progress: TransferProgress())
            #expect(read(sshd.path("sftp/in/up.bin")) == content)

        }
        // A fresh engine: a pooled SSH connection was verified once and is not checked again.
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("f.bin").path
            let empty = scratch.appendingPathComponent("empty_known_hosts").path
            _ = FileManager.default.createFile(atPath: empty, contents: Data())
            await #expect {
                _ = try await download(engine, "sftp://127.0.0.1:\(sshd.port)\(sshd.path("sftp/f.bin"))", to: file) {
                    configure(&$0, knownHosts: empty)
                }
            } throws: { error in
                guard let error = error as? TransferError, error.kind == .permanent, error.code == "host-key-unknown" else { return false }
                return error.message.contains("127.0.0.1:\(sshd.port) is not in \(empty)")
                    && error.message.contains("ssh-keyscan -t ed25519 -p \(sshd.port) 127.0.0.1 >> \(empty)")
            }
            // Another key for the host: not unknown, but changed (or an impostor).
            let other = scratch.appendingPathComponent("other_known_hosts").path
            let clientKey = try String(contentsOfFile: sshd.path("client_key.pub"), encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
            try "[127.0.0.1]:\(sshd.port) \(clientKey)\n".write(toFile: other, atomically: true, encoding: .utf8)
            await #expect {
                _ = try await download(engine, "sftp://127.0.0.1:\(sshd.port)\(sshd.path("sftp/f.bin"))", to: file) {
                    configure(&$0, knownHosts: other)
                }
            } throws: { ($0 as? TransferError)?.code == "host-key-mismatch" }
            await #expect {
                _ = try await download(engine, "sftp://127.0.0.1:\(sshd.port)\(sshd.path("sftp/f.bin"))", to: file) {
                    configure(&$0, knownHosts: "/nonexistent/known_hosts")
                }
            } throws: { ($0 as? TransferError)?.code == "known-hosts" }
        }
    }

    /// `ssh-keyscan HOST >> known_hosts` lists the RSA key first, and libcurl then asked
    /// for "ssh-rsa" signatures only (SHA-1, refused by OpenSSH since 8.8): the key
    /// exchange failed though the file held the host's ed25519 key too. Now that key is
    /// used; a host known by its RSA key alone still fails, saying what to add.
    @Test func sftpWorksWithKnownHostsAsSSHKeyscanWritesItAndSaysWhatAnRSAOnlyEntryLacks() async throws {
        guard let sshd = try RealServer.sshd() else { return }
        defer { sshd.stop() }
        try sshd.write("sftp/k.bin", Array("keys".utf8))
        let url = "sftp://127.0.0.1:\(sshd.port)\(sshd.path("sftp/k.bin"))"
        func configure(_ r: inout TransferRequest, knownHosts: String) {
            r.options.sshPrivateKey = sshd.path("client_key")
            r.options.sshKnownHosts = knownHosts
        }
        #expect(try String(contentsOfFile: sshd.path("known_hosts"), encoding: .utf8).hasPrefix("[127.0.0.1]:\(sshd.port) ssh-rsa "))
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("k.bin").path
            _ = try await download(engine, url, to: file) { configure(&$0, knownHosts: sshd.path("known_hosts")) }
            #expect(read(file) == Array("keys".utf8))
        }
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("k.bin").path
            let rsaOnly = sshd.path("known_hosts_rsa")
            await #expect {
                _ = try await download(engine, url, to: file) { configure(&$0, knownHosts: rsaOnly) }
            } throws: { error in
                guard let error = error as? TransferError else { return false }
                return error.message.contains("Unable to exchange encryption keys (if \(rsaOnly) knows 127.0.0.1 by its RSA key only")
                    && error.message.contains("ssh-keyscan -t ed25519 -p \(sshd.port) 127.0.0.1 >> \(rsaOnly)")
            }
        }
    }

    /// FTP and SFTP have no If-Range: the file's time, reported as `last-modified`, stands
    /// in for it. A partial continues while the file keeps that time; after it changed,
    /// the resumed transfer fails before appending a byte.
    @Test(arguments: ["ftp", "sftp"])
    func anFTPOrSFTPPartialContinuesOnlyWhileTheRemoteFileKeepsItsTime(scheme: String) async throws {
        let content = EngineTesting.bytes(1_000_000)
        try await withRemoteFile(scheme, "r.bin", content) { engine, remote, file in
            let url = remote.url, settings = remote.settings
            let seen = Mutex<String?>(nil)
            _ = try await download(engine, url, to: file) { r in
                settings(&r)
                r.onResponse = { _, headers in seen.withLock { $0 = headers["last-modified"] }; return nil }
            }
            let validator = try #require(seen.withLock { $0 })
            #expect(validator == DatedRemoteFile.time)
            let resumed = try await download(engine, url, to: file, request: { r in
                settings(&r)
                r.resumeFrom = 400_000
                r.ifRange = validator
            }, existing: Array(content[..<400_000]))
            #expect(resumed.resumed)
            let whole = read(file) == content  // compared outside #expect: its diff of 1 MB arrays takes minutes
            #expect(whole)

            remote.touch()  // now: another file, as far as anyone can tell
            await #expect {
                _ = try await download(engine, url, to: file, request: { r in
                    settings(&r)
                    r.resumeFrom = 400_000
                    r.ifRange = validator
                }, existing: Array(content[..<400_000]))
            } throws: { ($0 as? TransferError)?.code == TransferError.remoteFileChanged }
            let untouched = read(file) == Array(content[..<400_000])
            #expect(untouched, "nothing appended")
        }
    }

    /// A kill between the last byte and the rename leaves the whole file in the partial;
    /// resuming it at its end receives nothing. Still the same file: resumed, complete.
    /// Another file by then: refused, as for a resume with bytes to come.
    @Test(arguments: ["ftp", "sftp"])
    func anFTPOrSFTPPartialHoldingTheWholeFileIsCompleteOnlyIfTheFileKeptItsTime(scheme: String) async throws {
        let content = EngineTesting.bytes(100_000)
        try await withRemoteFile(scheme, "w.bin", content) { engine, remote, file in
            let url = remote.url
            func resume(_ validator: String) -> (inout TransferRequest) -> Void {
                { r in
                    remote.settings(&r)
                    r.resumeFrom = 100_000
                    r.ifRange = validator
                }
            }
            let outcome = try await download(engine, url, to: file, request: resume(DatedRemoteFile.time), existing: content)
            #expect(outcome.resumed)
            #expect(outcome.bytesTransferred == 0)
            await #expect {
                _ = try await download(engine, url, to: file, request: resume("Sat, 12 Sep 2020 12:26:40 GMT"), existing: content)
            } throws: { ($0 as? TransferError)?.code == TransferError.remoteFileChanged }
        }
    }

    /// FTP and SFTP have no If-Modified-Since: a download given the file's time ends at its
    /// first byte as a 304, writing nothing; another time, and it is fetched.
    @Test(arguments: ["ftp", "sftp"])
    func anFTPOrSFTPDownloadGivenTheFilesTimeEndsAsNotModified(scheme: String) async throws {
        try await withRemoteFile(scheme, "c.bin", EngineTesting.bytes(200_000)) { engine, remote, file in
            let url = remote.url
            func since(_ date: String) -> (inout TransferRequest) -> Void {
                { r in
                    remote.settings(&r)
                    r.ifModifiedSince = date
                }
            }
            let same = try await download(engine, url, to: file, request: since(DatedRemoteFile.time))
            #expect(same.status == 304)
            #expect(read(file).isEmpty, "nothing written")
            let other = try await download(engine, url, to: file, request: since("Sat, 12 Sep 2020 12:26:40 GMT"))
            #expect(other.status != 304)
            #expect(other.headers["last-modified"] == DatedRemoteFile.time, "the outcome reports the file's time too")
            #expect(read(file).count == 200_000)
        }
    }

    /// As `ssh` does: the user the URL names, else the local login name (libcurl's own
    /// default is an empty name, which every server refuses); a passphrase unlocks a key.
    @Test func sftpLogsInAsTheURLsUserElseTheLocalUserAndUnlocksAKeyWithItsPassphrase() async throws {
        guard let sshd = try RealServer.sshd() else { return }
        defer { sshd.stop() }
        try sshd.write("sftp/f.bin", Array("hello".utf8))
        let local = try #require(SSHDefaults.loginName())
        // An sshd not started by root can log in only the user it runs as: the URL then
        // names that user, which still takes the URL's user over the default.
        let other = getuid() != 0 ? local : local == "nobody" ? "root" : "nobody"
        func url(_ user: String?) -> String { "sftp://\(user.map { $0 + "@" } ?? "")127.0.0.1:\(sshd.port)\(sshd.path("sftp/f.bin"))" }
        func key(_ name: String, passphrase: String? = nil) -> (inout TransferRequest) -> Void {
            { r in
                r.options.sshPrivateKey = sshd.path(name)
                r.options.sshKnownHosts = sshd.path("known_hosts")
                r.options.sshKeyPassphrase = passphrase
            }
        }
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("f").path
            _ = try await download(engine, url(nil), to: file, request: key("client_key"))
            #expect(read(file) == Array("hello".utf8), "as the local user")
            _ = try await download(engine, url(other), to: file, request: key("client_key"))
            #expect(read(file) == Array("hello".utf8), "as the URL's user")
        }
        // Fresh engines: libcurl reuses a logged-in connection to the same user and host.
        try await withEngine { engine, scratch in
            await #expect {
                _ = try await download(engine, url(nil), to: scratch.appendingPathComponent("f").path, request: key("client_key_pw"))
            } throws: { error in
                guard let error = error as? TransferError, error.code == "CURLE_LOGIN_DENIED" else { return false }
                return error.message.contains("as \"\(local)\" with the key \(sshd.path("client_key_pw"))") && error.message.contains("sftp.passphraseEnv")
            }
        }
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("f").path
            _ = try await download(engine, url(nil), to: file, request: key("client_key_pw", passphrase: "passphrase"))
            #expect(read(file) == Array("hello".utf8), "with the key its passphrase unlocked")
        }
        let log = sshd.log()
        #expect(log.contains("Accepted publickey for \(local) "), "\(log)")
        #expect(log.contains("Accepted publickey for \(other) "), "\(log)")
    }

    /// As `ssh` does: when the key file is refused, the keys ssh-agent holds are tried.
    /// A CI job's agent (SSH_AUTH_SOCK) must not be passed over because some other key
    /// happens to sit in ~/.ssh.
    @Test func sftpFallsBackToTheKeysSSHAgentHolds() async throws {
        guard let sshd = try RealServer.sshd(),
              let agentProgram = try RealServer.program("/usr/bin/ssh-agent", package: "openssh-client"),
              let add = try RealServer.program("/usr/bin/ssh-add", package: "openssh-client") else { return }
        defer { sshd.stop() }
        try sshd.write("sftp/f.bin", Array("hello".utf8))
        let socket = sshd.path("agent.sock")
        // Its output discarded, else it holds `swift test`'s pipe open.
        let agent = try RunningProgram(agentProgram, ["-D", "-a", socket], stdout: .discard, stderr: .discard)
        defer {
            agent.signal(SIGKILL)  // with -D it ignores SIGTERM
            _ = agent.wait(upTo: .seconds(2))
        }
        for _ in 0..<500 where access(socket, F_OK) != 0 { usleep(10_000) }
        try #require(RealServer.runToEnd(add, ["-q", sshd.path("client_key")], environment: ["SSH_AUTH_SOCK": socket]) == 0, "ssh-add")
        // Process-wide, as libssh2 reads it. Other tests' servers do not know this key.
        let before = getenv("SSH_AUTH_SOCK").map { String(cString: $0) }
        setenv("SSH_AUTH_SOCK", socket, 1)
        defer { if let before { setenv("SSH_AUTH_SOCK", before, 1) } else { unsetenv("SSH_AUTH_SOCK") } }
        try await withEngine { engine, scratch in
            let file = scratch.appendingPathComponent("f").path
            _ = try await download(engine, "sftp://127.0.0.1:\(sshd.port)\(sshd.path("sftp/f.bin"))", to: file, request: { r in
                r.options.sshPrivateKey = sshd.path("host_key")  // a key the server does not accept
                r.options.sshKnownHosts = sshd.path("known_hosts")
            })
            #expect(read(file) == Array("hello".utf8))
        }
    }

    /// Mutual TLS: a server that requires a client certificate refuses a transfer without
    /// one, and accepts the one given, its key apart or in the same file, encrypted or not.
    @Test func aServerThatRequiresAClientCertificateGetsTheOneGiven() async throws {
        guard let tls = try RealServer.nginxMutualTLS() else { return }
        defer { tls.stop() }
        try tls.write("www/s.txt", Array("members only\n".utf8))
        func request(_ certificate: String?, key: String? = nil, passphrase: String? = nil) -> TransferRequest {
            var r = TransferRequest(url: "https://127.0.0.1:\(tls.port)/s.txt")
            r.options.caFile = tls.path("cert.pem")
            r.options.clientCertificate = certificate.map(tls.path)
            r.options.clientKey = key.map(tls.path)
            r.options.clientKeyPassphrase = passphrase
            return r
        }
        // A fresh engine each: a connection is never reused with another certificate, but
        // each case should stand on its own.
        try await withEngine { engine, _ in
            await #expect {
                _ = try await engine.perform(request(nil), progress: TransferProgress())
            } throws: { ($0 as? TransferError)?.httpStatus == 400 }  // nginx: "No required SSL certificate was sent"
        }
        for accepted in [request("client.pem", key: "client.key"), request("client-both.pem"),
                         request("client.pem", key: "client-encrypted.key", passphrase: "open sesame")] {
            try await withEngine { engine, _ in
                let outcome = try await engine.perform(accepted, progress: TransferProgress())
                #expect(String(decoding: outcome.body, as: UTF8.self) == "members only\n", "\(accepted.options.clientKey ?? "")")
            }
        }
        try await withEngine { engine, _ in
            await #expect {
                _ = try await engine.perform(request("client.pem", key: "client-encrypted.key", passphrase: "wrong"), progress: TransferProgress())
            } throws: { error in
                let e = error as? TransferError
                return e?.code == "CURLE_SSL_CERTPROBLEM" && e?.kind == .local && e?.message.contains("wrong") == false
            }
        }
    }

    @Test func tlsIsVerifiedByDefaultAndHTTPSNeverRedirectsToHTTPUnlessAllowed() async throws {
        guard let tls = try RealServer.nginxTLS() else { return }
        defer { tls.stop() }
        try tls.write("www/s.txt", Array("secret stuff\n".utf8))
        let base = "https://127.0.0.1:\(tls.port)"
        try await withEngine { engine, _ in
            await #expect {
                _ = try await engine.perform(TransferRequest(url: base + "/s.txt"), progress: TransferProgress())
            } throws: { ($0 as? TransferError)?.kind == .permanent && ($0 as? TransferError)?.code == "CURLE_PEER_FAILED_VERIFICATION" }

            var trusted = TransferRequest(url: base + "/s.txt")
            trusted.options.caFile = tls.path("cert.pem")
            let verified = try await engine.perform(trusted, progress: TransferProgress())
            #expect(String(decoding: verified.body, as: UTF8.self) == "secret stuff\n")

            var insecure = TransferRequest(url: base + "/s.txt")
            insecure.options.insecure = true
            let unverified = try await engine.perform(insecure, progress: TransferProgress())
            #expect(unverified.status == 200)

            // Followed by libcurl, then by the engine (a request with origin-bound headers).
            for engineFollows in [false, true] {
                var downgrade = TransferRequest(url: base + "/to-http")
                downgrade.options.caFile = tls.path("cert.pem")
                if engineFollows { downgrade.headers = [("X-Key", "k")]; downgrade.originBoundHeaders = ["x-key"] }
                await #expect {
                    _ = try await engine.perform(downgrade, progress: TransferProgress())
                } throws: { error in
                    let e = error as? TransferError
                    return e?.kind == .permanent && e?.code == "CURLE_UNSUPPORTED_PROTOCOL" && e?.message.contains("https URL may not lead to http") == true
                }
                downgrade.options.allowInsecureRedirects = true
                await #expect {
                    _ = try await engine.perform(downgrade, progress: TransferProgress())
                } throws: { ($0 as? TransferError)?.code == "CURLE_COULDNT_CONNECT" }  // it followed; nothing listens there
            }
        }
    }
}

/// A file on vsftpd (`ftp`) or sshd (`sftp`) last modified at `time`, for the tests of
/// the remote file's time standing in for HTTP's validators.
struct DatedRemoteFile {
    static let time = "Sun, 13 Sep 2020 12:26:40 GMT"
    let server: RealServer
    /// The file on this machine.
    let path: String
    let url: String

    /// nil when the server's package is not installed.
    init?(_ scheme: String, _ name: String, _ content: [UInt8]) throws {
        guard let server = try scheme == "ftp" ? RealServer.vsftpd() : RealServer.sshd() else { return nil }
        let remote = Self.location(of: name, scheme: scheme, on: server)
        try server.write(remote.relative, content)
        self.server = server
        (path, url) = (remote.path, remote.url)
        let seconds = timeval(tv_sec: 1_600_000_000, tv_usec: 0)
        #expect(utimes(path, [seconds, seconds]) == 0)
    }

    /// Where a file named `name` lives on the server: relative to its folder (for
    /// `RealServer.write`), on this machine, and as the URL that reaches it.
    static func location(of name: String, scheme: String, on server: RealServer) -> (relative: String, path: String, url: String) {
        let relative = (scheme == "ftp" ? "ftp/pub/" : "sftp/") + name
        let path = server.path(relative)
        return (relative, path, scheme == "ftp" ? "ftp://127.0.0.1:\(server.port)/pub/\(name)" : "sftp://127.0.0.1:\(server.port)\(path)")
    }

    /// The SSH files a request to sshd needs (ignored by FTP).
    func settings(_ r: inout TransferRequest) {
        r.options.sshPrivateKey = server.path("client_key")
        r.options.sshKnownHosts = server.path("known_hosts")
    }

    /// Gives the file the time of now: another file, as far as its time tells.
    func touch() {
        #expect(utimes(path, nil) == 0)
    }
}
