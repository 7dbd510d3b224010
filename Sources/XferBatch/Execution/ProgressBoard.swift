import Synchronization
import XferCurl

/// The transfers under way and their byte counters, for displays that poll (at most ten
/// times a second): registering happens once per attempt, never per chunk.
public final class ProgressBoard: Sendable {
    public struct Entry: Sendable {
        public var id: String
        public var startedAt: Duration
        public var bytesDone: Int64
        public var bytesExpected: Int64?
    }

    private let active = Mutex<[String: (TransferProgress, Duration)]>([:])

    public init() {}

    func register(_ id: String, _ progress: TransferProgress, at now: Duration) {
        active.withLock { $0[id] = (progress, now) }
    }

    func unregister(_ id: String) {
        active.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// A snapshot of the active transfers, ordered by start.
    public func snapshot() -> [Entry] {
        active.withLock { entries in
            entries.map { Entry(id: $0.key, startedAt: $0.value.1, bytesDone: $0.value.0.bytesDone, bytesExpected: $0.value.0.bytesExpected) }
        }.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
    }
}
