import Foundation
import Synchronization
import XferCurl

/// A `Transport` that answers from a script instead of the network, for executor tests.
///
/// Each URL has a queue of answers (the last one repeats); a success writes its body to
/// the request's destination. It records every request and the most transfers in flight,
/// overall and per host, so tests can check the limits held. `holdFor` keeps each
/// transfer open that long (real time) so that transfers overlap.
public final class InMemoryTransport: Transport {
    public enum Answer: Sendable {
        case body([UInt8], headers: [String: String] = [:])
        case failure(TransferError)
        /// Never finishes by itself; ends when the task is cancelled.
        case hang
        /// A bodyless answer with this status (304 for conditional requests).
        case status(Int)
        /// The start of a body, written to the destination, then this failure: a connection
        /// that broke off during the body.
        case cutOff([UInt8], TransferError)
        /// Refused at once by a `limitConnections` limit (not scripted).
        case refused(TransferError)
    }

    private struct State {
        var scripts: [String: [Answer]] = [:]
        var requests: [TransferRequest] = []
        var inFlight = 0
        var maxInFlight = 0
        var inFlightByHost: [String: Int] = [:]
        var maxInFlightByHost: [String: Int] = [:]
        var connectionLimits: [String: (max: Int, refusal: TransferError)] = [:]
        var refusals = 0
    }

    private let state = Mutex(State())
    private let holdFor: Duration
    private let started: AsyncStream<String>.Continuation
    /// The URL of each transfer as it starts.
    public let starts: AsyncStream<String>

    public init(holdFor: Duration = .zero) {
        self.holdFor = holdFor
        (starts, started) = AsyncStream.makeStream(of: String.self)
    }

    public func script(_ url: String, _ answers: [Answer]) {
        state.withLock { $0.scripts[url] = answers }
    }

    /// Refuses a transfer to `host` with `refusal` while `max` others to it are in flight,
    /// as an FTP server with a limit per address does (vsftpd's `max_per_ip`); the script is
    /// not consumed.
    public func limitConnections(toHost host: String, max: Int, refusal: TransferError) {
        state.withLock { $0.connectionLimits[host] = (max, refusal) }
    }

    /// Transfers refused by a `limitConnections` limit.
    public var refusals: Int { state.withLock { $0.refusals } }

    public var requests: [TransferRequest] { state.withLock { $0.requests } }
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    public var maxInFlightByHost: [String: Int] { state.withLock { $0.maxInFlightByHost } }

    public func perform(_ request: TransferRequest, progress: TransferProgress) async throws(TransferError) -> TransferOutcome {
        let host = Self.host(request.url)
        let answer: Answer = state.withLock { s in
            s.requests.append(request)
            s.inFlight += 1
            s.maxInFlight = max(s.maxInFlight, s.inFlight)
            s.inFlightByHost[host, default: 0] += 1
            s.maxInFlightByHost[host] = max(s.maxInFlightByHost[host] ?? 0, s.inFlightByHost[host]!)
            if let limit = s.connectionLimits[host], s.inFlightByHost[host]! > limit.max {
                return .refused(limit.refusal)
            }
            guard var queue = s.scripts[request.url], let first = queue.first else {
                return .failure(TransferError(kind: .permanent, code: "HTTP 404", message: "no script for \(request.url)", httpStatus: 404))
            }
            if queue.count > 1 { queue.removeFirst() }
            s.scripts[request.url] = queue
            return first
        }
        if case .refused(let refusal) = answer {
            // At once, as a server answers 421 on connect: the connection never counted.
            state.withLock { s in s.inFlight -= 1; s.inFlightByHost[host, default: 1] -= 1; s.refusals += 1 }
            throw refusal
        }
        started.yield(request.url)
        defer { state.withLock { s in s.inFlight -= 1; s.inFlightByHost[host, default: 1] -= 1 } }
        do {
            if case .hang = answer { try await Task.sleep(for: .seconds(3600)) }
            if holdFor > .zero { try await Task.sleep(for: holdFor) }
        } catch {
            throw TransferError(kind: .cancelled, code: "cancelled", message: "the transfer was cancelled")
        }
        switch answer {
        case .failure(let error):
            throw error
        case .cutOff(let bytes, let error):
            if case .file(let fd, let offset) = request.destination {
                _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) }
            }
            progress.update(done: Int64(bytes.count), expected: nil)
            throw error
        case .status(let code):
            return TransferOutcome(status: code, effectiveURL: request.url)
        case .body(var bytes, let headers):
            // A resumed request gets the rest of the body, as a server honouring Range would,
            // and answers as the engine does when there is no rest (see `TransferOutcome.resumed`).
            let from = Int(request.resumeFrom ?? 0)
            let resumed = from > 0
            if resumed && from > bytes.count {
                throw TransferError(kind: .permanent, code: "HTTP 416", message: "the server answered 416", httpStatus: 416)
            }
            if resumed && from == bytes.count && request.ifRange != nil {
                return TransferOutcome(status: 416, headers: headers, effectiveURL: request.url, resumed: true)
            }
            if resumed { bytes = Array(bytes.dropFirst(from)) }
            if case .file(let fd, let offset) = request.destination {
                let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) }
                guard written == bytes.count else { throw TransferError(kind: .local, code: "write", message: "write failed") }
                bytes.withUnsafeBytes { request.onBodyWritten?($0) }
            }
            progress.update(done: Int64(bytes.count), expected: Int64(bytes.count))
            return TransferOutcome(status: resumed ? 206 : 200, headers: headers, bytesTransferred: Int64(bytes.count),
                                   effectiveURL: request.url, resumed: resumed, body: request.destination.isFile ? [] : bytes)
        case .hang:
            throw TransferError(kind: .cancelled, code: "cancelled", message: "the transfer was cancelled")
        case .refused(let refusal):
            throw refusal
        }
    }

    static func host(_ url: String) -> String {
        guard let r = url.range(of: "://") else { return "local" }
        return String(url[r.upperBound...].prefix { $0 != "/" })
    }
}

extension TransferRequest.Destination {
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}
