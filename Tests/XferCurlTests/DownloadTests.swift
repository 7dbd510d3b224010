import Foundation
import Synchronization
import Testing
import XferCurl
import XferFixtures

@Suite("Engine: downloads")
struct DownloadTests {
    /// Easy handles are reused (`EasyHandlePool`): one whose transfer broke off (the
    /// connection closed mid-body, a refused connection, a failed TLS handshake, a redirect
    /// libcurl refused to follow) must serve the next transfer as a new one would. After a
    /// refused redirect libcurl 7.88 kept the handle's receive buffer and refused the next
    /// transfer's buffer size ("bad argument").
    @Test func aTransferAfterOneThatBrokeOffIsWholeOnTheSameEngine() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(200_000)
            t.server.addFile("a.bin", content)
            t.server.script("/files/a.bin", [.closeAfter(bytes: 50_000)])
            let refused = "http://127.0.0.1:\(try LoopbackPort.free())/a.bin"
            let notTLS = t.url("/files/a.bin").replacingOccurrences(of: "http://", with: "https://")
            t.server.redirect("/to-ftp", to: "ftp://127.0.0.1:1/a.bin")
            for broken in [t.url("/files/a.bin"), refused, notTLS, t.url("/to-ftp")] {
                let (_, fd) = try t.openFile("broken-\(UUID().uuidString)")
                defer { close(fd) }
                await #expect(throws: TransferError.self) {
                    try await t.engine.perform(TransferRequest(url: broken, destination: .file(descriptor: fd, offset: 0)), progress: TransferProgress())
                }
                let (result, bytes) = try await t.download("/files/a.bin")
                #expect(throws: Never.self) { try result.get() }
                #expect(bytes == content)
            }
        }
    }

    @Test func writesTheBodyToTheCallersDescriptor() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(300_000)
            t.server.addFile("a.bin", content)
            let progress = TransferProgress()
            let (file, fd) = try t.openFile("a.bin")
            let outcome = try await t.engine.perform(TransferRequest(url: t.url("/files/a.bin"), destination: .file(descriptor: fd, offset: 0)),
                                                     progress: progress)
            close(fd)
            #expect(t.read(file) == content)
            #expect(outcome.status == 200)
            #expect(outcome.bytesTransferred == 300_000)
            #expect(outcome.etag?.isEmpty == false)
            #expect(outcome.effectiveURL == t.url("/files/a.bin"))
            #expect(progress.bytesDone == 300_000)
            #expect(progress.bytesExpected == 300_000)
            #expect(outcome.timings.total > .zero)
        }
    }

    /// A host name outside ASCII goes out in its xn-- form, as curl sends it in a UTF-8
    /// locale; in the "C" locale every Swift program starts in it was refused as a
    /// malformed URL. (`*.localhost` names reach 127.0.0.1 without DNS.)
    @Test func aHostNameOutsideASCIIIsSentInItsASCIIForm() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("idn.txt", Array("ok".utf8))
            let outcome = try await t.engine.perform(TransferRequest(url: "http://bücher.localhost:\(t.server.port)/files/idn.txt"),
                                                     progress: TransferProgress())
            #expect(outcome.body == Array("ok".utf8))
            #expect(t.server.requests(to: "/files/idn.txt").first?.header("Host") == "xn--bcher-kva.localhost:\(t.server.port)")
        }
    }

    /// A body without a length (chunked here; or ended by closing the connection) that goes
    /// past `maxFileSize` is stopped there, and nothing past it is written: a server that
    /// streamed without end filled the disk (6.8 GB in 20 s) for a file said to be 1 MiB.
    @Test func aBodyLongerThanTheFileMayBeIsStoppedAtItsLength() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("long.bin", EngineTesting.bytes(3_000_000))
            t.server.script("/files/long.bin", [.chunked])
            let (result, bytes) = try await t.download("/files/long.bin") { $0.maxFileSize = 100_000 }
            let error = try #require(result.failure)
            #expect(error.code == TransferError.sizeMismatch && error.kind == .permanent, "\(error)")
            #expect(error.message.contains("more than the 100000 bytes"))
            #expect(bytes.count <= 100_000)
            #expect(bytes == Array(EngineTesting.bytes(3_000_000)[..<bytes.count]))
        }
    }

    /// What a failed download's counters show is what its file holds (the run's total
    /// counts it), not what libcurl received: here a body refused at its first bytes, and
    /// one cut at the most the file may hold.
    @Test func aFailedDownloadsCountersShowWhatReachedItsFile() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("refused.bin", EngineTesting.bytes(300_000))
            t.server.addFile("long.bin", EngineTesting.bytes(3_000_000))
            t.server.script("/files/long.bin", [.chunked])
            for (path, limit) in [("/files/refused.bin", nil), ("/files/long.bin", Int64(100_000))] {
                let (file, fd) = try t.openFile("counted-\(UUID().uuidString)")
                defer { close(fd) }
                var request = TransferRequest(url: t.url(path), destination: .file(descriptor: fd, offset: 0))
                request.maxFileSize = limit
                if limit == nil {
                    request.onResponse = { _, _ in TransferError(kind: .permanent, code: "refused", message: "refused at the headers") }
                }
                let progress = TransferProgress()
                await #expect(throws: TransferError.self) { try await t.engine.perform(request, progress: progress) }
                #expect(progress.bytesDone == Int64(t.read(file).count), "\(path)")
                #expect(limit == nil ? progress.bytesDone == 0 : progress.bytesDone > 0, "\(path): \(progress.bytesDone)")
            }
        }
    }

    /// Fields a server sends after a chunked body (trailers) are not its headers: an ETag
    /// there replaced the one kept at the first byte, and a later If-Range or If-None-Match
    /// then sent the trailer's. RFC 9110 (6.5.1) forbids merging a trailer field into the
    /// headers unless its definition allows it, and ETag's and Last-Modified's do not.
    @Test func aTrailerAfterTheBodyReplacesNoHeader() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("trailed.bin", EngineTesting.bytes(50_000))
            let plain = try #require(try await t.download("/files/trailed.bin").result.success)
            t.server.script("/files/trailed.bin", [.chunkedWithTrailers(["ETag": "\"from-the-trailer\"", "Last-Modified": "Thu, 01 Jan 1970 00:00:00 GMT"])])
            let (result, bytes) = try await t.download("/files/trailed.bin")
            let trailed = try result.get()
            #expect(bytes == EngineTesting.bytes(50_000))
            #expect(trailed.etag == plain.etag && trailed.etag != nil)
            #expect(trailed.headers["last-modified"] == plain.headers["last-modified"])
        }
    }

    @Test func aBodyOfExactlyTheFilesLengthIsWhole() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("exact.bin", EngineTesting.bytes(100_000))
            t.server.script("/files/exact.bin", [.chunked])
            let (result, bytes) = try await t.download("/files/exact.bin") { $0.maxFileSize = 100_000 }
            #expect(try result.get().bytesTransferred == 100_000)
            #expect(bytes == EngineTesting.bytes(100_000))
        }
    }

    @Test func eachRunOfBodyBytesIsShownInFileOrderAsItIsWritten() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(700_000)  // several gathered writes
            t.server.addFile("seen.bin", content)
            let seen = Mutex<[UInt8]>([])
            let (result, bytes) = try await t.download("/files/seen.bin") { request in
                request.onBodyWritten = { run in seen.withLock { $0 += run } }
            }
            #expect(try result.get().bytesTransferred == 700_000)
            #expect(bytes == content)
            #expect(seen.withLock { $0 } == content)
        }
    }

    @Test func resumesWithRangeAndIfRangeWhenTheServerHonoursThem() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(100_000)
            t.server.addFile("r.bin", content)
            let etag = try #require(try await t.download("/files/r.bin").result.success?.etag)
            let (result, bytes) = try await t.download("/files/r.bin", request: { $0.resumeFrom = 40_000; $0.ifRange = etag },
                                                       existing: Array(content[..<40_000]))
            let outcome = try #require(result.success)
            #expect(outcome.status == 206)
            #expect(outcome.resumed)
            #expect(outcome.bytesTransferred == 60_000)
            #expect(bytes == content)
            let request = try #require(t.server.requests(to: "/files/r.bin").last)
            #expect(request.header("Range") == "bytes=40000-")
            #expect(request.header("If-Range") == etag)
        }
    }

    @Test func restartsFromZeroWhenTheServerIgnoresTheRange() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(50_000)
            t.server.addFile("i.bin", content)
            t.server.script("/files/i.bin", [.ignoreRange])
            let (result, bytes) = try await t.download("/files/i.bin", request: { $0.resumeFrom = 10_000 },
                                                       existing: [UInt8](repeating: 0xEE, count: 10_000))
            let outcome = try #require(result.success)
            #expect(outcome.status == 200)
            #expect(!outcome.resumed)
            #expect(bytes == content, "stale bytes must be truncated away")
        }
    }

    /// A 206 whose bytes do not start where the partial ends would splice two parts of the
    /// file at the wrong place: nothing of it is written, and the code says the partial
    /// cannot be continued (the runner then discards it and starts over).
    @Test func aRangeAnsweredFromAnotherOffsetIsRefusedAndNothingIsAppended() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(50_000)
            t.server.addFile("m.bin", content)
            t.server.script("/files/m.bin", [.misplacedRange])
            let existing = Array(content[..<10_000])
            let (result, bytes) = try await t.download("/files/m.bin", request: { $0.resumeFrom = 10_000 }, existing: existing)
            #expect(result.failure?.code == TransferError.badContentRange)
            #expect(result.failure.map { TransferError.cannotContinue.contains($0.code) } == true)
            #expect(bytes == existing)
        }
    }

    /// A 206 to a request for the whole file (a cache or proxy that mishandles ranges, or
    /// nginx answering a `Range` header of the caller's): its bytes are the file's first
    /// ones, written, but the transfer is not the whole file, and says how far it got.
    @Test func aPartAnsweringARequestForTheWholeFileIsNoWholeFile() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(1000)
            t.server.script("/files/p.bin", [.untrueHeaders(206, headers: ["Content-Range": "bytes 0-99/1000", "Content-Length": "100"],
                                                            body: Array(content[..<100]))])
            let (result, bytes) = try await t.download("/files/p.bin")
            #expect(result.failure?.code == TransferError.partOfTheFile)
            #expect(result.failure?.isTransient == true)
            #expect(result.failure?.message == "the server sent the file only up to byte 100 of 1000 (206 Partial Content)")
            #expect(bytes == Array(content[..<100]))
        }
    }

    /// A resumed download whose rest comes in a part that ends before the file does: the
    /// part is appended, and the transfer ends as an incomplete one, for the next attempt
    /// to continue where the part ended.
    @Test func aResumedPartEndingBeforeTheFileIsAppendedButNotComplete() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(50_000)
            t.server.script("/files/p.bin", [.untrueHeaders(206, headers: ["Content-Range": "bytes 10000-10099/50000", "Content-Length": "100"],
                                                            body: Array(content[10_000..<10_100]))])
            let (result, bytes) = try await t.download("/files/p.bin", request: { $0.resumeFrom = 10_000 }, existing: Array(content[..<10_000]))
            #expect(result.failure?.code == TransferError.partOfTheFile)
            #expect(bytes == Array(content[..<10_100]))
        }
    }

    /// A part whose Content-Length is not its range's, or whose range ends past the file:
    /// which bytes are which cannot be told, so none is written.
    @Test(arguments: [("bytes 0-99/1000", "200", "asked for the whole file, got bytes 0-99/1000 with a Content-Length of 200"),
                      ("bytes 0-199/100", "200", "got bytes 0-199/100, which ends past the file's length"),
                      ("bytes 100-199/1000", "100", "asked for the whole file, got bytes 100-199/1000 with a Content-Length of 100"),
                      ("bytes 0-9223372036854775807/*", "100", "asked for the whole file, got bytes 0-9223372036854775807/* with a Content-Length of 100")])
    func aPartThatContradictsItselfIsNotWritten(range: String, length: String, message: String) async throws {
        try await EngineTesting.with { t in
            t.server.script("/files/p.bin", [.untrueHeaders(206, headers: ["Content-Range": range, "Content-Length": length],
                                                            body: EngineTesting.bytes(Int(length)!))])
            let (result, bytes) = try await t.download("/files/p.bin")
            #expect(result.failure?.code == TransferError.badContentRange)
            #expect(result.failure?.message == message)
            #expect(bytes.isEmpty)
        }
    }

    @Test func aChangedEntityArrivesWholeInsteadOfBeingAppended() async throws {
        try await EngineTesting.with { t in
            let old = EngineTesting.bytes(20_000, seed: 1)
            let new = EngineTesting.bytes(25_000, seed: 2)
            t.server.addFile("c.bin", old)
            let etag = try #require(try await t.download("/files/c.bin").result.success?.etag)
            t.server.script("/files/c.bin", [.changeContent(new)])
            let (result, bytes) = try await t.download("/files/c.bin", request: { $0.resumeFrom = 5_000; $0.ifRange = etag },
                                                       existing: Array(old[..<5_000]))
            #expect(result.success?.resumed == false)
            #expect(bytes == new)
        }
    }

    @Test func aRangeBeyondTheEndIsA416Error() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("s.bin", EngineTesting.bytes(1000))
            let etag = try #require(try await t.download("/files/s.bin").result.success?.etag)
            let (result, bytes) = try await t.download("/files/s.bin", request: { $0.resumeFrom = 1200; $0.ifRange = etag },
                                                       existing: EngineTesting.bytes(1200))
            #expect(result.failure?.httpStatus == 416)
            #expect(bytes == EngineTesting.bytes(1200), "the partial file is left as it was")
        }
    }

    @Test func aPartialHoldingTheWholeEntityIsResumedWithNothingToSend() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("s.bin", EngineTesting.bytes(1000))
            let etag = try #require(try await t.download("/files/s.bin").result.success?.etag)
            let (result, bytes) = try await t.download("/files/s.bin", request: { $0.resumeFrom = 1000; $0.ifRange = etag },
                                                       existing: EngineTesting.bytes(1000))
            let outcome = try #require(result.success)
            #expect(outcome.status == 416)
            #expect(outcome.resumed)
            #expect(outcome.bytesTransferred == 0)
            #expect(bytes == EngineTesting.bytes(1000), "the 416 page never reaches the file")
        }
    }

    @Test func withoutIfRangeA416ForTheWholeLengthStaysAnError() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("s.bin", EngineTesting.bytes(1000))
            let (result, _) = try await t.download("/files/s.bin", request: { $0.resumeFrom = 1000 },
                                                   existing: EngineTesting.bytes(1000))
            #expect(result.failure?.httpStatus == 416, "nothing says the partial is this entity's")
        }
    }

    @Test func errorBodiesNeverReachTheDestination() async throws {
        try await EngineTesting.with { t in
            let (result, bytes) = try await t.download("/files/missing.bin")
            let error = try #require(result.failure)
            #expect(error.kind == .permanent)
            #expect(error.code == "HTTP 404")
            #expect(bytes.isEmpty)
            #expect(String(decoding: error.responseBody, as: UTF8.self).contains("no such file"))
        }
    }

    @Test func aConditionalRequestAnswered304IsAnOutcome() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("n.bin", EngineTesting.bytes(5000))
            let first = try #require(try await t.download("/files/n.bin").result.success)
            let (byTag, tagBytes) = try await t.download("/files/n.bin", request: { $0.ifNoneMatch = first.etag })
            #expect(byTag.success?.status == 304)
            #expect(tagBytes.isEmpty)
            let (byDate, _) = try await t.download("/files/n.bin", request: { $0.ifModifiedSince = first.lastModified })
            #expect(byDate.success?.status == 304)
        }
    }

    @Test func headRequestsGetHeadersOnly() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("h.bin", EngineTesting.bytes(4096), contentDisposition: "attachment; filename=\"report.csv\"")
            let (result, bytes) = try await t.download("/files/h.bin", request: { $0.method = .head })
            let outcome = try #require(result.success)
            #expect(outcome.contentLength == 4096)
            #expect(outcome.contentDisposition == "attachment; filename=\"report.csv\"")
            #expect(bytes.isEmpty)
        }
    }

    @Test func decodesDataURLs() async throws {
        try await EngineTesting.with { t in
            let base64 = try await t.engine.perform(TransferRequest(url: "data:text/plain;base64,aGVsbG8sIHhmZXJiYXRjaAo="), progress: TransferProgress())
            #expect(String(decoding: base64.body, as: UTF8.self) == "hello, xferbatch\n")
            let percent = try await t.engine.perform(TransferRequest(url: "data:,a%20b%E2%9C%93"), progress: TransferProgress())
            #expect(String(decoding: percent.body, as: UTF8.self) == "a b✓")
            await #expect(throws: TransferError.self) {
                _ = try await t.engine.perform(TransferRequest(url: "data:;base64,***"), progress: TransferProgress())
            }
        }
    }

    @Test func readsFileURLs() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(10_000)
            let source = t.write("source.bin", content)
            let (file, fd) = try t.openFile("copy.bin")
            _ = try await t.engine.perform(TransferRequest(url: "file://" + source, destination: .file(descriptor: fd, offset: 0)),
                                           progress: TransferProgress())
            close(fd)
            #expect(t.read(file) == content)
        }
    }

    @Test func aDiskThatFillsUpDuringTheBodyIsALocalErrorAndKeepsWhatFitted() async throws {
        // The first chunk fits and is written at once; the rest is gathered and written
        // later, so the disk's refusal arrives at that later write and must still win.
        guard let disk = SmallFilesystem.mount(bytes: 64 << 10) else {
            print("skipped: mounting a small tmpfs needs root or passwordless sudo")
            return
        }
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(200_000)
            t.server.addFile("big.bin", content)
            let path = disk.path + "/big.bin"
            let fd = open(path, O_WRONLY | O_CREAT, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            let error = await t.failure(downloading: "/files/big.bin", into: fd)
            #expect(error?.kind == .local)
            #expect(error?.code == "ENOSPC")
            let kept = t.read(path)
            #expect(!kept.isEmpty && kept.count < content.count)
            #expect(kept == Array(content[..<kept.count]))
        }
    }

    @Test func aFullDiskIsALocalError() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("big.bin", EngineTesting.bytes(100_000))
            let fd = open("/dev/full", O_WRONLY)
            try #require(fd >= 0, "/dev/full is needed to simulate a full disk")
            defer { close(fd) }
            let error = await t.failure(downloading: "/files/big.bin", into: fd)
            #expect(error?.kind == .local)
            #expect(error?.code == "ENOSPC")
        }
    }
}
