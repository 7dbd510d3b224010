import Synchronization

/// A wait that ends once: when its timer runs out, or earlier when rung (the run stopped,
/// the job was skipped, the task was cancelled). See `SharedScheduler.wait`.
///
/// The waiter is resumed by whoever rings first, exactly once; ringing before anyone
/// waits makes the wait return at once. Ending a wait early does not depend on a sleeping
/// task noticing its cancellation: the waiter's continuation is resumed directly.
final class Alarm: Sendable {
    private let state = Mutex<(rung: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    /// Suspends until `ring()` (at once if it rang already).
    func wait() async {
        await withCheckedContinuation { continuation in
            let rang = state.withLock { s -> Bool in
                if s.rung { return true }
                s.waiter = continuation
                return false
            }
            if rang { continuation.resume() }
        }
    }

    /// Ends the wait; later calls do nothing.
    func ring() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.rung else { return nil }
            s.rung = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }
}
