import Foundation
import Synchronization
import Testing
import XferCurl
import XferFixtures
#if canImport(Glibc)
import Glibc
#endif

@Suite("Engine: shutdown")
struct ShutdownTests {
    /// A process exits right after `shutdown()`; had libcurl not closed its connections by
    /// then, closing a TLS or SSH one would run OpenSSL while exit handlers free it.
    @Test func shutdownReturnsOnlyOnceThePooledConnectionsAreClosed() async throws {
        let server = try OneResponseServer()
        let engine = try TransferEngine()
        let outcome = try await engine.perform(TransferRequest(url: "http://127.0.0.1:\(server.port)/x"), progress: TransferProgress())
        #expect(outcome.body == Array("ok".utf8))
        let connection = try #require(server.connection.withLock { $0 }, "the server kept the connection it answered on")
        var byte: UInt8 = 0
        #expect(recv(connection, &byte, 1, Int32(MSG_DONTWAIT)) == -1 && errno == EAGAIN, "kept open for reuse while the engine runs")

        await engine.shutdown()

        // The client's FIN is in this socket's queue as soon as its close(2) returned.
        #expect(recv(connection, &byte, 1, Int32(MSG_DONTWAIT)) == 0, "the engine had closed the connection when shutdown returned")
    }
}

/// A socket answering one HTTP request with `ok` and keeping the connection (keep-alive),
/// so the test can see, from the server's side, when the client closes it.
private final class OneResponseServer: Sendable {
    let port: Int
    /// The accepted connection, set before the response is sent.
    let connection = Mutex<Int32?>(nil)

    init() throws {
        let (listener, port) = try LoopbackPort.listening(backlog: 1)
        self.port = port
        Thread.detachNewThread { [self] in
            defer { close(listener) }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else { return }
                request += buffer[..<n]
            }
            connection.withLock { $0 = fd }  // before the answer: the test reads it once answered
            let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
            _ = response.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }
}
