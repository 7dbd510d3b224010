import CCurl
import Foundation
import Testing
@testable import XferCurl
import XferFixtures

@Suite("Engine: failure classes")
struct FailureClassificationTests {
    @Test(arguments: [(408, TransferError.Kind.transient), (425, .transient), (429, .transient), (500, .transient),
                      (502, .transient), (503, .transient), (504, .transient), (400, .permanent), (401, .permanent),
                      (403, .permanent), (404, .permanent), (410, .permanent), (501, .permanent), (507, .permanent)])
    func httpStatusesMapToTheirClass(status: Int, kind: TransferError.Kind) async throws {
        try await EngineTesting.with { t in
            let (result, _) = try await t.download("/status/\(status)")
            #expect(result.failure?.kind == kind)
            #expect(result.failure?.httpStatus == status)
        }
    }

    /// A failure's code is a name a report's reader can look up: an FTP server's bad PASV
    /// reply read `CURLcode 13`. Every code retried, or blamed on this machine, has one.
    @Test func everyCodeRetriedOrLocalHasItsName() {
        for raw in UInt32(1)...99 where TransferError.kind(of: CURLcode(rawValue: raw), ftpReply: 0) != .permanent {
            #expect(TransferError.name(of: CURLcode(rawValue: raw)).hasPrefix("CURLE_"), "code \(raw)")
        }
        #expect(TransferError.name(of: CURLE_FTP_WEIRD_PASV_REPLY) == "CURLE_FTP_WEIRD_PASV_REPLY")
        #expect(TransferError.name(of: CURLE_REMOTE_DISK_FULL) == "CURLE_REMOTE_DISK_FULL")
    }

    @Test func retryAfterInSecondsIsReported() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("x", [1])
            t.server.script("/files/x", [.status(503, retryAfter: "7")])
            let error = try #require(try await t.download("/files/x").result.failure)
            #expect(error.kind == .transient)
            #expect(error.retryAfter == .seconds(7))
        }
    }

    /// An IMF-fixdate (`Sun, 22 Nov 2026 15:20:00 GMT`).
    func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test func retryAfterAsAnHTTPDateIsReportedAsADelay() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("x", [1])
            let before = Date()
            t.server.script("/files/x", [.status(429, retryAfter: httpDate(before.addingTimeInterval(120)))])
            let delay = try #require(try await t.download("/files/x").result.failure?.retryAfter)
            // The date is whole seconds and the delay is taken when the answer arrives, which a
            // loaded machine can hold up for seconds: bound it by the time actually spent.
            let spent = Int64(Date().timeIntervalSince(before).rounded(.up))
            #expect(delay >= .seconds(119 - spent) && delay <= .seconds(120))
        }
    }

    /// The date is the server's word: a year no calendar field holds (Int32.min, minus
    /// 1900) trapped and ended the run; it is no date, so no delay.
    @Test func aRetryAfterDateInAnImpossibleYearIsIgnored() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("x", [1])
            t.server.script("/files/x", [.status(503, retryAfter: "Sun, 06 Nov -2147483648 08:49:37 GMT",
                                                 date: "Sun, 06 Nov 99999 08:49:37 GMT")])
            let failure = try #require(try await t.download("/files/x").result.failure)
            #expect(failure.code == "HTTP 503")
            #expect(failure.retryAfter == nil)
        }
    }

    /// A server whose clock is an hour behind ours asks for a time that is past by our clock:
    /// the wait is what it asks by its own (its `Date`), not none.
    @Test func aRetryAfterDateIsReadOnTheServersClock() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("x", [1])
            let serverNow = Date().addingTimeInterval(-3600)
            t.server.script("/files/x", [.status(503, retryAfter: httpDate(serverNow.addingTimeInterval(90)), date: httpDate(serverNow))])
            let failure = try await t.download("/files/x").result.failure
            #expect(failure?.retryAfter == .seconds(90))
        }
    }

    @Test func aScriptedSequenceFailsThenSucceeds() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("seq", EngineTesting.bytes(100))
            t.server.script("/files/seq", [.status(503), .status(503)])
            let first = try await t.download("/files/seq"), second = try await t.download("/files/seq")
            let third = try await t.download("/files/seq")
            #expect(first.result.failure?.kind == .transient)
            #expect(second.result.failure?.kind == .transient)
            #expect(third.bytes == EngineTesting.bytes(100))
        }
    }

    @Test func aRefusedConnectionIsTransient() async throws {
        try await EngineTesting.with { t in
            let nobody = try LoopbackPort.Refusing()
            await #expect {
                _ = try await t.engine.perform(TransferRequest(url: "http://127.0.0.1:\(nobody.port)/x"), progress: TransferProgress())
            } throws: { error in
                (error as? TransferError)?.kind == .transient && (error as? TransferError)?.code == "CURLE_COULDNT_CONNECT"
            }
        }
    }

    @Test func aDroppedConnectionIsTransientAndKeepsTheBytesWritten() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("d.bin", EngineTesting.bytes(200_000))
            t.server.script("/files/d.bin", [.closeAfter(bytes: 50_000)])
            let (result, bytes) = try await t.download("/files/d.bin")
            let error = try #require(result.failure)
            #expect(error.kind == .transient)
            #expect(error.code == "CURLE_PARTIAL_FILE")
            #expect(bytes == Array(EngineTesting.bytes(200_000)[..<50_000]))
        }
    }

    @Test func aBodyShorterThanAnnouncedIsTransient() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("w.bin", EngineTesting.bytes(10_000))
            t.server.script("/files/w.bin", [.wrongContentLength(extra: 500)])
            let error = try #require(try await t.download("/files/w.bin").result.failure)
            #expect(error.kind == .transient)
            #expect(error.code == "CURLE_PARTIAL_FILE")
        }
    }

    @Test func aStallIsATransientTimeout() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("st.bin", EngineTesting.bytes(100_000))
            t.server.script("/files/st.bin", [.stall(afterBytes: 1000, seconds: 4)])
            let (result, _) = try await t.download("/files/st.bin") { $0.options.stallTimeout = .seconds(1) }
            let error = try #require(result.failure)
            #expect(error.kind == .transient)
            #expect(error.code == "stalled")
        }
    }

    /// A manifest may write a timeout of centuries ("9999999h") to mean never; in
    /// nanoseconds that no longer fits 64 bits, and converting it trapped in the first
    /// progress call.
    @Test func timeoutsTooLongForNanosecondsNeverFire() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("long.bin", EngineTesting.bytes(100_000))
            let (result, bytes) = try await t.download("/files/long.bin") { r in
                r.options.stallTimeout = .seconds(Int64.max)
                r.options.answerTimeout = .seconds(Int64.max)
                r.options.connectTimeout = .seconds(Int64.max)
                r.options.totalTimeout = .seconds(Int64.max)
            }
            #expect(try result.get().bytesTransferred == 100_000)
            #expect(bytes == EngineTesting.bytes(100_000))
        }
    }

    /// Followed by libcurl, or by the engine for a request with origin-bound headers.
    @Test(arguments: [false, true]) func aRedirectLoopIsPermanent(engineFollows: Bool) async throws {
        try await EngineTesting.with { t in
            let error = try #require(try await t.download("/loop") { r in
                if engineFollows { r.headers = [("X-Key", "k")]; r.originBoundHeaders = ["x-key"] }
            }.result.failure)
            #expect(error.kind == .permanent)
            #expect(error.code == "CURLE_TOO_MANY_REDIRECTS")
        }
    }

    @Test func aMalformedURLIsPermanent() async throws {
        try await EngineTesting.with { t in
            await #expect {
                _ = try await t.engine.perform(TransferRequest(url: "http://[::1"), progress: TransferProgress())
            } throws: { ($0 as? TransferError)?.kind == .permanent }
        }
    }

    /// A server or load balancer that drops the connection during the handshake (OpenSSL
    /// says `SSL_ERROR_SYSCALL`, or "reset by peer") fails this attempt, not the job.
    @Test(arguments: [false, true]) func aTLSHandshakeTheConnectionDroppedUnderIsTransient(reset: Bool) async throws {
        let dropping = try DroppingServer(reset: reset)
        try await EngineTesting.with { t in
            await #expect {
                _ = try await t.engine.perform(TransferRequest(url: "https://127.0.0.1:\(dropping.port)/x"), progress: TransferProgress())
            } throws: { error in
                let failure = error as? TransferError
                return failure?.code == "CURLE_SSL_CONNECT_ERROR" && failure?.kind == .transient
            }
        }
    }

    @Test func aTLSFailureIsPermanent() async throws {
        try await EngineTesting.with { t in
            // Speaking TLS to a plain HTTP server fails the handshake.
            await #expect {
                _ = try await t.engine.perform(TransferRequest(url: "https://127.0.0.1:\(t.server.port)/files/x"), progress: TransferProgress())
            } throws: { ($0 as? TransferError)?.kind == .permanent }
        }
    }
}
