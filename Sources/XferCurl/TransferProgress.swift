import Synchronization

/// Byte counters of one transfer, written by the engine's thread from libcurl's
/// progress callback and read by whoever polls (the progress display, checkpoints).
///
/// Atomics only: no lock, no allocation and no notification on the hot path. Readers
/// poll at their own pace (at most 10 times a second for a terminal).
public final class TransferProgress: Sendable {
    private let done = Atomic<Int64>(0)
    private let expected = Atomic<Int64>(-1)

    public init() {}

    /// Body bytes moved so far in this attempt (downloaded or uploaded).
    public var bytesDone: Int64 { done.load(ordering: .relaxed) }

    /// Total body bytes expected, or nil while unknown.
    public var bytesExpected: Int64? {
        let e = expected.load(ordering: .relaxed)
        return e < 0 ? nil : e
    }

    /// Stores new counters (transports call this; readers only poll).
    public func update(done: Int64, expected: Int64?) {
        self.done.store(done, ordering: .relaxed)
        if let expected { self.expected.store(expected, ordering: .relaxed) }
    }
}
