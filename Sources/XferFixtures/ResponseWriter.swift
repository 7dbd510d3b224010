import NIOCore
import NIOHTTP1

/// Writes HTTP responses to one connection; HEAD answers get headers only.
struct ResponseWriter {
    let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    let isHead: Bool

    func head(_ status: Int, _ headers: [(String, String)]) async throws {
        var h = HTTPHeaders()
        for (name, value) in headers { h.add(name: name, value: value) }
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: h)))
    }

    func body(_ bytes: ArraySlice<UInt8>) async throws {
        guard !isHead, !bytes.isEmpty else { return }
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes))))
    }

    func end() async throws {
        try await outbound.write(.end(nil))
    }

    /// A complete small response.
    func simple(_ status: Int, _ text: String, extra: [(String, String)] = []) async throws {
        let bytes = Array(text.utf8)
        try await head(status, [("Content-Length", "\(bytes.count)"), ("Content-Type", "text/plain")] + extra)
        try await body(bytes[...])
        try await end()
    }
}
