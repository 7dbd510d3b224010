import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// One client connection: reads requests one after another (keep-alive) and answers them.
struct FixtureConnection {
    let state: FixtureState
    let channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// A request body as it arrives: hashed on the fly; kept only for multipart parsing.
    struct Body {
        var hasher = SHA256()
        var count = 0
        var kept: [UInt8] = []
        var keep: Bool
        static let keepLimit = 64 << 20

        mutating func append(_ buffer: ByteBuffer) {
            buffer.withUnsafeReadableBytes { raw in
                hasher.update(bufferPointer: raw)
                if keep, kept.count + raw.count <= Self.keepLimit { kept.append(contentsOf: raw) }
            }
            count += buffer.readableBytes
        }
    }

    func serve() async {
        let id = state.connectionOpened()
        defer { state.connectionClosed() }
        try? await channel.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = Body(keep: false)
            for try await part in inbound {
                switch part {
                case .head(let h):
                    head = h
                    body = Body(keep: h.headers.first(name: "content-type")?.lowercased().hasPrefix("multipart/") == true)
                case .body(let buffer):
                    body.append(buffer)
                case .end:
                    guard let request = head else { return }
                    let start = ContinuousClock.now
                    state.contents.withLock { c in
                        c.inFlight += 1
                        c.maxInFlight = max(c.maxInFlight, c.inFlight)
                    }
                    let state = self.state
                    let finished = {
                        let end = ContinuousClock.now
                        state.contents.withLock { c in
                            c.inFlight -= 1
                            c.intervals.append(start...end)
                        }
                    }
                    // Ends when the client can see the whole response (see `ResponseWriter`),
                    // or here, for one cut off or never completed.
                    let writer = ResponseWriter(outbound: outbound, isHead: request.method == .HEAD, willComplete: finished)
                    defer { if !writer.completed { finished() } }
                    let keepOpen = try await respond(to: request, body: body, connection: id, writer: writer)
                    if !keepOpen || !request.isKeepAlive { return }
                    head = nil
                }
            }
        }
    }

    /// Answers one request; false closes the connection.
    private func respond(to head: HTTPRequestHead, body: Body, connection: Int, writer: ResponseWriter) async throws -> Bool {
        // An absolute URL is a request to a forward proxy: this server then answers it from
        // its own files whatever the host, which is enough to prove a client used the proxy.
        let proxied = head.uri.hasPrefix("http://") ? head.uri : nil
        let target = proxied.map { uri in
            let rest = uri.dropFirst("http://".count)
            return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        } ?? head.uri
        let path = String(target.prefix { $0 != "?" })
        let open = state.contents.withLock { c -> Int in
            c.log.append(LoggedRequest(method: head.method.rawValue, path: path, headers: head.headers.map { ($0.name, $0.value) },
                                       openConnections: c.openConnections, connectionID: connection, proxiedURL: proxied))
            return c.openConnections
        }
        _ = open
        if let denied = authorizationProblem(head, path: path) {
            try await writer.simple(denied.status, denied.message, extra: denied.status == 401 ? [("WWW-Authenticate", "Basic realm=\"fixture\"")] : [])
            return true
        }
        var fault = state.nextFault(for: path)
        if case .delayAnswer(let seconds) = fault {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            fault = nil
        }
        if case .changeContent(let bytes) = fault {
            let name = FixtureRoutes.fileName(path)
            state.contents.withLock { c in
                let version = (c.files[name].map { Int($0.etag.split(separator: "-").last?.dropLast() ?? "1") ?? 1 } ?? 0) + 1
                c.files[name] = FixtureFile(bytes: bytes, version: version, contentDisposition: c.files[name]?.contentDisposition)
            }
            fault = nil
        }
        if case .status(let code, let retryAfter, let date) = fault {
            let extra = [retryAfter.map { ("Retry-After", $0) }, date.map { ("Date", $0) }].compactMap { $0 }
            try await writer.simple(code, "scripted \(code)\n", extra: extra)
            return true
        }
        if case .untrueHeaders(let code, let headers, let body) = fault {
            try await writer.head(code, headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            try await writer.body(body[...])
            return false
        }
        if case .answer(let code, let type, let body) = fault {
            try await writer.head(code, [("Content-Length", "\(body.count)"), ("Content-Type", type)])
            try await writer.body(body[...])
            try await writer.end()
            return true
        }
        if let redirect = state.contents.withLock({ $0.redirects[path] }) {
            try await writer.simple(redirect.status, "redirect\n", extra: [("Location", redirect.target)])
            return true
        }
        switch (head.method, FixtureRoutes.route(path)) {
        case (.GET, .file(let name)), (.HEAD, .file(let name)):
            return try await FileResponder(state: state, writer: writer).serve(name: name, head: head, fault: fault)
        case (.PUT, .upload), (.POST, .upload), (.POST, .form), (.PUT, .form):
            let upload = ReceivedUpload.make(method: head.method.rawValue, path: path, head: head, body: body)
            state.contents.withLock { $0.uploads.append(upload) }
            try await writer.simple(201, "{\"bytes\":\(upload.bytes),\"sha256\":\"\(upload.sha256)\"}\n",
                                    extra: [("Content-Type", "application/json")])
            return true
        case (_, .status(let code)):
            try await writer.simple(code, "status \(code)\n")
            return true
        case (_, .loop):
            try await writer.simple(302, "loop\n", extra: [("Location", path)])
            return true
        default:
            try await writer.simple(404, "not found: \(path)\n")
            return true
        }
    }

    private func authorizationProblem(_ head: HTTPRequestHead, path: String) -> (status: Int, message: String)? {
        let rules = state.contents.withLock { $0.auth }.filter { path.hasPrefix($0.prefix) }
        let given = head.headers.first(name: "authorization")
        for (_, rule) in rules {
            switch rule {
            case .basic(let user, let password):
                let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
                if given != expected { return (401, "basic credentials required\n") }
            case .bearer(let token):
                if given != "Bearer \(token)" { return (401, "bearer token required\n") }
            case .noAuthorizationHeader:
                if given != nil { return (400, "only one auth mechanism allowed; the URL is pre-signed\n") }
            }
        }
        return nil
    }
}

/// The fixture's URL space.
enum FixtureRoutes {
    enum Route {
        case file(String), upload, form, status(Int), loop, unknown
    }

    static func route(_ path: String) -> Route {
        if path.hasPrefix("/files/") || path.hasPrefix("/blob/") { return .file(fileName(path)) }
        if path.hasPrefix("/uploads/") { return .upload }
        if path.hasPrefix("/forms/") { return .form }
        if path.hasPrefix("/status/"), let code = Int(path.dropFirst(8)) { return .status(code) }
        if path.hasPrefix("/loop") { return .loop }
        return .unknown
    }

    /// `/files/a/b.bin` -> `a/b.bin`, percent-decoded.
    static func fileName(_ path: String) -> String {
        let rest = path.hasPrefix("/files/") ? path.dropFirst(7) : path.hasPrefix("/blob/") ? path.dropFirst(6) : Substring(path)
        return String(rest).removingPercentEncoding ?? String(rest)
    }
}
