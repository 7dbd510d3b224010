import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server for tests and the quickstart, on a loopback address and a free port.
///
/// It serves files with validators and single ranges, stores uploads (raw and
/// multipart) with their SHA-256, checks credentials, redirects, and misbehaves on
/// request (`script(_:_:)`): status sequences, `Retry-After`, dropped connections,
/// stalls, slow drips, wrong lengths, ignored ranges, changing content. Every request is
/// logged with the number of connections open at that moment.
public final class FixtureServer: Sendable {
    public let host: String
    public let port: Int
    let state: FixtureState
    private let channel: Channel
    private let acceptor: Task<Void, Never>

    /// Starts a server on `host`:`port` (0 picks a free port). `root` serves a folder's
    /// files under `/files/` in addition to those added with `addFile`.
    public static func start(host: String = "127.0.0.1", port: Int = 0, root: String? = nil) async throws -> FixtureServer {
        let state = FixtureState()
        state.contents.withLock { $0.rootFolder = root }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: child)
                }
            }
        // The acceptor and each connection's task (children of its group) prefer it.
        let executor = EventLoopTaskExecutor(server.channel.eventLoop)
        let acceptor = Task<Void, Never>(executorPreference: executor) {
            _ = try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            group.addTask { await FixtureConnection(state: state, channel: connection).serve() }
                        }
                    } catch {}
                }
            }
        }
        return FixtureServer(host: host, port: server.channel.localAddress?.port ?? port, state: state,
                             channel: server.channel, acceptor: acceptor)
    }

    private init(host: String, port: Int, state: FixtureState, channel: Channel, acceptor: Task<Void, Never>) {
        self.host = host
        self.port = port
        self.state = state
        self.channel = channel
        self.acceptor = acceptor
    }

    /// `http://HOST:PORT`
    public var baseURL: String { "http://\(host):\(port)" }

    /// Stops accepting and closes open connections.
    public func stop() async {
        try? await channel.close()
        acceptor.cancel()
        await acceptor.value
    }

    // MARK: Set-up

    /// Serves `bytes` at `/files/NAME` (and `/blob/NAME`).
    public func addFile(_ name: String, _ bytes: [UInt8], contentDisposition: String? = nil) {
        state.contents.withLock { $0.files[name] = FixtureFile(bytes: bytes, contentDisposition: contentDisposition) }
    }

    /// The next requests to `path` misbehave as listed, one fault per request.
    public func script(_ path: String, _ faults: [Fault]) {
        state.contents.withLock { $0.scripts[path, default: []] += faults }
    }

    /// Requests to paths starting with `prefix` must satisfy `rule` (else 401/400).
    public func requireAuth(_ prefix: String, _ rule: FixtureAuth) {
        state.contents.withLock { $0.auth.append((prefix, rule)) }
    }

    /// `path` answers `status` (a redirect: 302, or 307 and 308, which keep the method and
    /// body) to `target`.
    public func redirect(_ path: String, to target: String, status: Int = 302) {
        state.contents.withLock { $0.redirects[path] = (target, status) }
    }

    // MARK: What happened

    public var requests: [LoggedRequest] { state.contents.withLock { $0.log } }
    public var uploads: [ReceivedUpload] { state.contents.withLock { $0.uploads } }
    /// The most connections that were open at once.
    public var maxOpenConnections: Int { state.contents.withLock { $0.maxOpenConnections } }

    public func requests(to path: String) -> [LoggedRequest] { requests.filter { $0.path == path } }

    /// Body bytes of `name` sent so far by a `drip`, once the socket took them.
    public func dripped(_ name: String) -> Int { state.contents.withLock { $0.dripped[name] ?? 0 } }

    /// The most requests this server was handling at once.
    public var maxConcurrentRequests: Int { state.contents.withLock { $0.maxInFlight } }

    /// When each answered request was being handled (from its end to its response's end).
    public var requestIntervals: [ClosedRange<ContinuousClock.Instant>] { state.contents.withLock { $0.intervals } }

    /// The most requests handled at once across several servers (a global limit check).
    public static func maxOverlap(_ intervals: [ClosedRange<ContinuousClock.Instant>]) -> Int {
        var points: [(at: ContinuousClock.Instant, delta: Int)] = []
        for interval in intervals {
            points.append((interval.lowerBound, 1))
            points.append((interval.upperBound, -1))
        }
        // Ends sort before starts at the same instant: touching intervals do not overlap.
        points.sort { (a, b) -> Bool in a.at == b.at ? a.delta < b.delta : a.at < b.at }
        var current = 0, best = 0
        for (_, delta) in points {
            current += delta
            best = max(best, current)
        }
        return best
    }
}
