import Foundation
import Testing
import XferCurl
import XferFixtures

@Suite("Engine: uploads and auth")
struct UploadTests {
    @Test(arguments: [TransferRequest.Method.put, .post])
    func aRawBodyIsStreamedFromTheFile(method: TransferRequest.Method) async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(1_500_000)
            let source = t.write("report.json", content)
            let outcome = try await t.engine.perform(
                TransferRequest(url: t.url("/uploads/report.json"), method: method, body: .file(path: source, contentType: nil)),
                progress: TransferProgress())
            #expect(outcome.status == 201)
            #expect(outcome.bytesTransferred == 1_500_000)
            let upload = try #require(t.server.uploads.first)
            #expect(upload.method == method.rawValue)
            #expect(upload.sha256 == EngineTesting.sha256(content))
            #expect(upload.contentType == "application/json", "guessed from the extension")
            #expect(String(decoding: outcome.body, as: UTF8.self).contains(upload.sha256), "the server's answer is captured")
        }
    }

    /// A 307 or 308 keeps the method and the body: libcurl reads the source again from
    /// its start, which needs the seek callback (without it: CURLE_SEND_FAIL_REWIND).
    @Test(arguments: [307, 308])
    func aRedirectedUploadSendsItsWholeBodyAgain(status: Int) async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(200_000)
            let source = t.write("moved.bin", content)
            t.server.redirect("/uploads/moved.bin", to: "/uploads/here.bin", status: status)
            let outcome = try await t.engine.perform(
                TransferRequest(url: t.url("/uploads/moved.bin"), method: .put, body: .file(path: source, contentType: nil)),
                progress: TransferProgress())
            #expect(outcome.status == 201)
            let upload = try #require(t.server.uploads.first)
            #expect(upload.path == "/uploads/here.bin")
            #expect(upload.sha256 == EngineTesting.sha256(content))
        }
    }

    /// A POST answered 301 or 302 is sent again, with its body, where the server points:
    /// before, libcurl turned it into a GET there and the upload ended "done" with nothing
    /// delivered. A 303 ("see other": the POST was taken) is followed with a GET.
    @Test(arguments: [(301, true), (302, true), (303, false)])
    func aPostRedirectedWith301Or302IsSentAgainAndA303EndsIt(status: Int, resent: Bool) async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(50_000)
            let source = t.write("post.bin", content)
            t.server.addFile("result.txt", Array("taken\n".utf8))
            t.server.redirect("/uploads/old", to: resent ? "/uploads/new" : "/files/result.txt", status: status)
            let outcome = try await t.engine.perform(
                TransferRequest(url: t.url("/uploads/old"), method: .post, body: .file(path: source, contentType: nil)),
                progress: TransferProgress())
            if resent {
                #expect(outcome.status == 201)
                let upload = try #require(t.server.uploads.first)
                #expect(upload.path == "/uploads/new" && upload.method == "POST")
                #expect(upload.sha256 == EngineTesting.sha256(content))
            } else {
                #expect(outcome.status == 200 && t.server.uploads.isEmpty)
                #expect(t.server.requests.last?.method == "GET")
            }
        }
    }

    @Test func multipartSendsFieldsAndSeveralFilesWithTheirNamesAndTypes() async throws {
        try await EngineTesting.with { t in
            let one = EngineTesting.bytes(3000, seed: 1), two = EngineTesting.bytes(70_000, seed: 2)
            let p1 = t.write("1.txt", one), p2 = t.write("2.jpg", two)
            let request = TransferRequest(url: t.url("/forms/upload"), method: .post, body: .multipart(
                fields: [("username", "Mike"), ("album", "holidays")],
                files: [.init(field: "userfile[]", path: p1, contentType: "text/plain"),
                        .init(field: "userfile[]", path: p2, filename: "aaa.jpg", contentType: "image/jpeg")]))
            _ = try await t.engine.perform(request, progress: TransferProgress())
            let upload = try #require(t.server.uploads.first)
            #expect(upload.fields == ["username": "Mike", "album": "holidays"])
            #expect(upload.files == [
                ReceivedFilePart(field: "userfile[]", filename: "1.txt", contentType: "text/plain", bytes: 3000, sha256: EngineTesting.sha256(one)),
                ReceivedFilePart(field: "userfile[]", filename: "aaa.jpg", contentType: "image/jpeg", bytes: 70_000, sha256: EngineTesting.sha256(two)),
            ])
        }
    }

    /// An upload under a cap keeps to it, raw or as a form: the read callback pauses the
    /// transfer while the cap's budget is spent, and the body still arrives whole.
    @Test(arguments: [false, true])
    func aCappedUploadKeepsToTheCapAndArrivesWhole(multipart: Bool) async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(600_000)
            let path = t.write("capped.bin", content)
            var request = TransferRequest(url: t.url(multipart ? "/forms/upload" : "/uploads/capped.bin"),
                                          method: multipart ? .post : .put,
                                          body: multipart ? .multipart(fields: [], files: [.init(field: "f", path: path)])
                                                          : .file(path: path, contentType: nil))
            request.options.bandwidth = SharedBandwidth(bytesPerSecond: 300_000)
            let started = ContinuousClock.now
            _ = try await t.engine.perform(request, progress: TransferProgress())
            let elapsed = ContinuousClock.now - started
            let upload = try #require(t.server.uploads.first)
            let sha = multipart ? upload.files.first?.sha256 : upload.sha256
            #expect(sha == EngineTesting.sha256(content))
            // 600 KB at 300 KB/s: 2 s, less a quiet cap's 16 KiB and one 64 KiB upload chunk.
            #expect(elapsed >= .seconds(1.6), "600 KB at 300 KB/s took \(elapsed)")
        }
    }

    /// libcurl asks a server for `100 Continue` before a body over 1 MiB and waits a second
    /// for it; a server that does not know the header (Python's http.server) made each
    /// multipart upload a second longer. Raw bodies never asked; now neither does this one.
    @Test func aLargeMultipartBodyIsSentWithoutWaitingForContinue() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(1_500_000)
            let path = t.write("big.bin", content)
            let request = TransferRequest(url: t.url("/forms/upload"), method: .post,
                                          body: .multipart(fields: [("a", "1")], files: [.init(field: "f", path: path)]))
            _ = try await t.engine.perform(request, progress: TransferProgress())
            let logged = try #require(t.server.requests(to: "/forms/upload").first)
            #expect(!logged.headers.contains { $0.name.lowercased() == "expect" }, "\(logged.headers)")
            #expect(t.server.uploads.first?.files.first?.sha256 == EngineTesting.sha256(content))
        }
    }

    /// A source cut short while it is sent (a log rotated, a file rewritten) ends the
    /// attempt at once as `source-changed`, worth another attempt; libcurl alone left the
    /// server waiting for the announced bytes until the stall timeout.
    @Test(arguments: [false, true])
    func aSourceThatShrinksWhileSentFailsAtOnceAsChanged(multipart: Bool) async throws {
        try await EngineTesting.with { t in
            // 100 s to send whole at the cap: the cut lands while it is sent even when a
            // loaded machine leaves this task waiting for seconds (2 MB, 5 s, did not).
            let path = t.write("growing.log", [UInt8](repeating: 0x6c, count: 40_000_000))
            var request = TransferRequest(url: t.url(multipart ? "/forms/upload" : "/uploads/growing.log"),
                                          method: multipart ? .post : .put,
                                          body: multipart ? .multipart(fields: [], files: [.init(field: "f", path: path)])
                                                          : .file(path: path, contentType: nil))
            request.options.bandwidth = SharedBandwidth(bytesPerSecond: 400_000)
            request.options.stallTimeout = .seconds(3)
            let progress = TransferProgress()
            let engine = t.engine
            let sending = Task { try await engine.perform(request, progress: progress) }
            for _ in 0..<500 where progress.bytesDone == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(progress.bytesDone > 0, "the upload began")
            #expect(truncate(path, 1000) == 0)
            await #expect {
                _ = try await sending.value
            } throws: {
                let error = $0 as? TransferError
                return error?.code == TransferError.sourceChanged && error?.kind == .transient
                    && error?.message.contains("shrank while it was being sent") == true
            }
            #expect(t.server.uploads.isEmpty, "nothing was received whole")
        }
    }

    /// A server may store or hash an upload before it answers. That wait counts against the
    /// answer timeout, not the stall timeout: given up on, the whole body would be sent again.
    @Test(arguments: [false, true])
    func anUploadsServerMayTakeLongerThanTheStallTimeoutToAnswer(multipart: Bool) async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(300_000)
            let path = t.write("stored.bin", content)
            let target = multipart ? "/forms/upload" : "/uploads/stored.bin"
            t.server.script(target, [.delayAnswer(seconds: 2.5)])
            var request = TransferRequest(url: t.url(target), method: multipart ? .post : .put,
                                          body: multipart ? .multipart(fields: [("a", "1")], files: [.init(field: "f", path: path)])
                                                          : .file(path: path, contentType: nil))
            request.options.stallTimeout = .seconds(1)
            request.options.answerTimeout = .seconds(10)
            let outcome = try await t.engine.perform(request, progress: TransferProgress())
            #expect(outcome.status == 201)
            #expect(t.server.uploads.count == 1)
        }
    }

    /// Past the answer timeout the attempt fails as `unanswered`, counted from the body's
    /// last byte. The error says which timeout decided (the stall timeout, 20 s, would
    /// give `stalled`); no wall-clock bound: a loaded CI machine took 16 s over it.
    @Test func anUploadLeftUnansweredForTheAnswerTimeoutFailsAsUnanswered() async throws {
        try await EngineTesting.with { t in
            let path = t.write("ignored.bin", EngineTesting.bytes(100_000))
            t.server.script("/uploads/ignored.bin", [.delayAnswer(seconds: 30)])
            var request = TransferRequest(url: t.url("/uploads/ignored.bin"), method: .put, body: .file(path: path, contentType: nil))
            request.options.stallTimeout = .seconds(20)
            request.options.answerTimeout = .seconds(1)
            await #expect {
                _ = try await t.engine.perform(request, progress: TransferProgress())
            } throws: {
                let error = $0 as? TransferError
                return error?.code == TransferError.unanswered && error?.kind == .transient
                    && error?.message == "the whole body was sent, then no answer came for 1 s (the answer timeout)"
            }
        }
    }

    @Test func aMissingUploadSourceIsALocalError() async throws {
        try await EngineTesting.with { t in
            await #expect {
                _ = try await t.engine.perform(TransferRequest(url: t.url("/uploads/x"), method: .put, body: .file(path: "/nonexistent/x", contentType: nil)),
                                               progress: TransferProgress())
            } throws: { ($0 as? TransferError)?.kind == .local && ($0 as? TransferError)?.code == "ENOENT" }
        }
    }

    @Test func basicAuthIsSentAndRequired() async throws {
        try await EngineTesting.with { t in
            t.server.requireAuth("/uploads/", .basic(user: "mirror", password: "s3cret"))
            let source = t.write("f.bin", [1, 2, 3])
            let without = TransferRequest(url: t.url("/uploads/f.bin"), method: .put, body: .file(path: source, contentType: nil))
            await #expect { _ = try await t.engine.perform(without, progress: TransferProgress()) } throws: {
                ($0 as? TransferError)?.httpStatus == 401 && ($0 as? TransferError)?.kind == .permanent
            }
            var with = without
            with.auth = .basic(user: "mirror", password: "s3cret")
            let outcome = try await t.engine.perform(with, progress: TransferProgress())
            #expect(outcome.status == 201)
        }
    }

    @Test func netrcCredentialsAreUsedForTheirHostOnly() async throws {
        try await EngineTesting.with { t in
            t.server.requireAuth("/files/", .basic(user: "mirror", password: "n3trc"))
            t.server.addFile("n.bin", [4, 5, 6])
            let netrc = t.write("netrc", Array("machine 127.0.0.1 login mirror password n3trc\n".utf8))
            let (result, bytes) = try await t.download("/files/n.bin") { $0.auth = .netrc(file: netrc) }
            #expect((try? result.get())?.status == 200)
            #expect(bytes == [4, 5, 6])
            let other = t.write("netrc-other", Array("machine example.org login mirror password n3trc\n".utf8))
            let (refused, _) = try await t.download("/files/n.bin") { $0.auth = .netrc(file: other) }
            #expect(refused.failure?.httpStatus == 401)
        }
    }

    @Test func aProxyCarriesTheRequest() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("via.bin", [7, 8, 9])
            // Nothing listens on 127.0.0.9:9: only the proxy can answer.
            let file = t.write("via-out", [])
            let fd = open(file, O_WRONLY)
            defer { close(fd) }
            var request = TransferRequest(url: "http://127.0.0.9:9/files/via.bin", destination: .file(descriptor: fd, offset: 0))
            request.options.proxy = t.server.baseURL
            let outcome = try await t.engine.perform(request, progress: TransferProgress())
            #expect(outcome.status == 200)
            #expect(t.server.requests.last?.proxiedURL == "http://127.0.0.9:9/files/via.bin")
        }
    }

    @Test func bearerAuthIsSent() async throws {
        try await EngineTesting.with { t in
            t.server.requireAuth("/files/", .bearer(token: "tok-123"))
            t.server.addFile("p.bin", [9, 9])
            let (result, bytes) = try await t.download("/files/p.bin") { $0.auth = .bearer(token: "tok-123") }
            #expect(result.success?.status == 200)
            #expect(bytes == [9, 9])
        }
    }

    @Test func credentialsAreNotSentToAnotherHostAfterARedirect() async throws {
        try await EngineTesting.with { t in
            // The CI-artifact shape: a token-protected API redirects to a pre-signed URL on
            // another host that rejects any request carrying an Authorization header.
            let blob = try await FixtureServer.start(host: "127.0.0.2")
            blob.addFile("linux-x64.zip", EngineTesting.bytes(12_345))
            blob.requireAuth("/blob/", .noAuthorizationHeader)
            t.server.requireAuth("/api/", .bearer(token: "ci-token"))
            t.server.redirect("/api/artifacts/linux-x64.zip", to: "\(blob.baseURL)/blob/linux-x64.zip?sig=abc")
            let (result, bytes) = try await t.download("/api/artifacts/linux-x64.zip") {
                $0.auth = .bearer(token: "ci-token")
                $0.headers = [("X-Trace", "1")]
            }
            await blob.stop()
            #expect(result.success?.status == 200)
            #expect(bytes == EngineTesting.bytes(12_345))
            #expect(t.server.requests.last?.header("Authorization") == "Bearer ci-token")
            #expect(blob.requests.allSatisfy { $0.header("Authorization") == nil })
            #expect(result.success?.effectiveURL.hasPrefix(blob.baseURL) == true)
        }
    }

    /// libcurl passes every custom header but Authorization and Cookie to any host a
    /// redirect names; a header holding a secret (from the environment) must not follow.
    @Test func originBoundHeadersAreNotSentToAnotherHostAfterARedirect() async throws {
        try await EngineTesting.with { t in
            let blob = try await FixtureServer.start(host: "127.0.0.2")
            blob.addFile("linux-x64.zip", EngineTesting.bytes(12_345))
            t.server.redirect("/api/artifacts/linux-x64.zip", to: "\(blob.baseURL)/files/linux-x64.zip?sig=abc")
            let (result, bytes) = try await t.download("/api/artifacts/linux-x64.zip") {
                $0.headers = [("PRIVATE-TOKEN", "glpat-secret"), ("X-Trace", "1")]
                $0.originBoundHeaders = ["private-token"]
                $0.auth = .bearer(token: "ci-token")
            }
            await blob.stop()
            #expect(result.success?.status == 200)
            #expect(bytes == EngineTesting.bytes(12_345))
            #expect(result.success?.effectiveURL == "\(blob.baseURL)/files/linux-x64.zip?sig=abc")
            #expect(t.server.requests.last?.header("PRIVATE-TOKEN") == "glpat-secret")
            let followed = try #require(blob.requests.last)
            #expect(followed.header("PRIVATE-TOKEN") == nil)
            #expect(followed.header("Authorization") == nil)
            #expect(followed.header("X-Trace") == "1", "a header without a secret follows, as with libcurl")
        }
    }

    @Test func originBoundHeadersFollowARedirectWithinTheOrigin() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("new.bin", [4, 2])
            t.server.redirect("/files/old.bin", to: "/files/new.bin")
            let (result, bytes) = try await t.download("/files/old.bin") {
                $0.headers = [("PRIVATE-TOKEN", "glpat-secret")]
                $0.originBoundHeaders = ["private-token"]
            }
            #expect(result.success?.status == 200)
            #expect(bytes == [4, 2], "the redirect's own body is not written")
            #expect(t.server.requests(to: "/files/new.bin").first?.header("PRIVATE-TOKEN") == "glpat-secret")
        }
    }

    @Test func anUploadWithAnOriginBoundHeaderIsNotRedirectedAndSaysWhy() async throws {
        try await EngineTesting.with { t in
            let other = try await FixtureServer.start(host: "127.0.0.2")
            t.server.redirect("/uploads/moved", to: "\(other.baseURL)/uploads/here", status: 307)
            let (path, fd) = try t.openFile("body-\(UUID().uuidString)", contents: [1, 2, 3])
            close(fd)
            var request = TransferRequest(url: t.url("/uploads/moved"), method: .put, body: .file(path: path, contentType: nil))
            request.headers = [("X-Api-Key", "k")]
            request.originBoundHeaders = ["x-api-key"]
            let error = await #expect(throws: TransferError.self) { _ = try await t.engine.perform(request, progress: TransferProgress()) }
            await other.stop()
            #expect(error?.code == "HTTP 307")
            #expect(error?.message.contains("an upload with a header from the environment is not redirected") == true, "\(String(describing: error))")
            #expect(other.requests.isEmpty)
        }
    }

    @Test func basicCredentialsAreNotSentToAnotherHostEither() async throws {
        try await EngineTesting.with { t in
            let other = try await FixtureServer.start(host: "127.0.0.2")
            other.addFile("f", [1])
            t.server.redirect("/files/away", to: "\(other.baseURL)/files/f")
            let (result, _) = try await t.download("/files/away") { $0.auth = .basic(user: "u", password: "p") }
            await other.stop()
            #expect(result.success != nil)
            #expect(other.requests.allSatisfy { $0.header("Authorization") == nil })
        }
    }
}
