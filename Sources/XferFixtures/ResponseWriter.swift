import NIOCore
import NIOHTTP1

/// Writes HTTP responses to one connection; HEAD answers get headers only.
///
/// `willComplete` runs once, just before the write that completes the response for the
/// client: its last body byte by Content-Length, the end of a chunked body, or the head of
/// an answer without a body. The client cannot see the response whole before that, so a
/// request's interval at the server (`FixtureServer.requestIntervals`) never ends after
/// the client has started its next request. Stamped after the last write instead, it did
/// on a loaded machine, and a client keeping to 4 at once looked like 5.
final class ResponseWriter {
    let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    let isHead: Bool
    private let willComplete: () -> Void
    /// Body bytes still to come, by the Content-Length sent; nil without one (chunked).
    private var remaining: Int?
    private(set) var completed = false

    init(outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, isHead: Bool, willComplete: @escaping () -> Void = {}) {
        self.outbound = outbound
        self.isHead = isHead
        self.willComplete = willComplete
    }

    func head(_ status: Int, _ headers: [(String, String)]) async throws {
        var h = HTTPHeaders()
        for (name, value) in headers { h.add(name: name, value: value) }
        remaining = h.first(name: "content-length").flatMap { Int($0) }
        if isHead || remaining == 0 || status == 204 || status == 304 { complete() }
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: h)))
    }

    func body(_ bytes: ArraySlice<UInt8>) async throws {
        guard !isHead, !bytes.isEmpty else { return }
        if let left = remaining {
            remaining = left - bytes.count
            if left <= bytes.count { complete() }
        }
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes))))
    }

    /// Ends the response; a chunked one with `trailers`, if any.
    func end(trailers: [String: String] = [:]) async throws {
        complete()
        var fields = HTTPHeaders()
        for (name, value) in trailers.sorted(by: { $0.key < $1.key }) { fields.add(name: name, value: value) }
        try await outbound.write(.end(trailers.isEmpty ? nil : fields))
    }

    /// A complete small response.
    func simple(_ status: Int, _ text: String, extra: [(String, String)] = []) async throws {
        let bytes = Array(text.utf8)
        try await head(status, [("Content-Length", "\(bytes.count)"), ("Content-Type", "text/plain")] + extra)
        try await body(bytes[...])
        try await end()
    }

    private func complete() {
        guard !completed else { return }
        completed = true
        willComplete()
    }
}
