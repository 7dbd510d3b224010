import Synchronization
import XferCurl

/// The transfers under way and their byte counters, for displays that poll (at most ten
/// times a second): registering happens once per attempt, never per chunk.
///
/// An attempt that ends without success leaves its bytes here (`Snapshot.bytesMoved`): they
/// were written or sent all the same, and the run's total keeps them (`RunSummary.bytes`),
/// so the total a display shows does not drop when a transfer breaks off and is retried.
public final class ProgressBoard: Sendable {
    public struct Entry: Sendable {
        public var id: String
        public var startedAt: Duration
        public var bytesDone: Int64
        public var bytesExpected: Int64?
        /// An upload: its bytes go out, and once all are sent it waits for the answer.
        public var sends = false
    }

    /// The transfers under way, ordered by start, and the bytes moved by attempts that are
    /// not (yet) counted by a success event: those under way and those that failed.
    public struct Snapshot: Sendable {
        public var entries: [Entry]
        public var bytesMoved: Int64
    }

    private struct State {
        var active: [String: (progress: TransferProgress, since: Duration, sends: Bool)] = [:]
        var failedAttemptBytes: Int64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// `sends`: the transfer is an upload.
    func register(_ id: String, _ progress: TransferProgress, sends: Bool = false, at now: Duration) {
        state.withLock { $0.active[id] = (progress, now, sends) }
    }

    /// The attempt ended; `failedAfter`: the bytes it moved, when it failed.
    func unregister(_ id: String, failedAfter moved: Int64 = 0) {
        state.withLock { s in
            _ = s.active.removeValue(forKey: id)
            s.failedAttemptBytes += moved
        }
    }

    /// The active transfers and the bytes moved, read under one lock: an attempt that ends
    /// between two reads is counted once, never twice or not at all.
    public func snapshot() -> Snapshot {
        let (entries, failed) = state.withLock { s in
            (s.active.map { id, a in
                Entry(id: id, startedAt: a.since, bytesDone: a.progress.bytesDone, bytesExpected: a.progress.bytesExpected, sends: a.sends)
             },
             s.failedAttemptBytes)
        }
        let sorted = entries.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
        return Snapshot(entries: sorted, bytesMoved: failed + sorted.reduce(0) { $0 + $1.bytesDone })
    }
}
