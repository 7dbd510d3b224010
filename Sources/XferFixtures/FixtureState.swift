import Foundation
import Crypto
import Synchronization

/// Everything the fixture server knows, shared by its connections under one lock.
final class FixtureState: Sendable {
    struct Contents {
        var files: [String: FixtureFile] = [:]
        var scripts: [String: [Fault]] = [:]
        var auth: [(prefix: String, rule: FixtureAuth)] = []
        var redirects: [String: (target: String, status: Int)] = [:]
        var log: [LoggedRequest] = []
        var uploads: [ReceivedUpload] = []
        var openConnections = 0
        var maxOpenConnections = 0
        var nextConnectionID = 1
        var rootFolder: String?
        /// When each answered request was being handled, for concurrency checks.
        var intervals: [ClosedRange<ContinuousClock.Instant>] = []
        var inFlight = 0
        var maxInFlight = 0
        /// Body bytes a drip has sent, per file name (for tests that act mid-transfer).
        var dripped: [String: Int] = [:]
    }

    let contents = Mutex(Contents())

    /// The next scripted fault for `path`, if any (each request consumes one).
    func nextFault(for path: String) -> Fault? {
        contents.withLock { c in
            guard var queue = c.scripts[path], !queue.isEmpty else { return nil }
            let fault = queue.removeFirst()
            c.scripts[path] = queue
            return fault
        }
    }

    func connectionOpened() -> Int {
        contents.withLock { c in
            c.openConnections += 1
            c.maxOpenConnections = max(c.maxOpenConnections, c.openConnections)
            defer { c.nextConnectionID += 1 }
            return c.nextConnectionID
        }
    }

    func connectionClosed() {
        contents.withLock { $0.openConnections -= 1 }
    }
}

extension Digest {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
