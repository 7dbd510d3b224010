/// Where a job is in its life. Final states never change again.
public enum JobState: Sendable, Equatable {
    /// Waiting for its dependencies.
    case pending
    /// Ready, waiting for a transfer slot (global or per-host limit).
    case queued
    /// An attempt is under way (1-based).
    case running(attempt: Int)
    /// Waiting out the delay before the next attempt; holds no slot.
    case waitingToRetry(attempt: Int)
    case succeeded
    /// Nothing to do: the checkpoint store shows the work is already done.
    case upToDate
    case failed
    /// Not run because a dependency failed (or the run stopped first).
    case skipped
    /// Stopped by an interrupt.
    case cancelled

    public var isFinal: Bool {
        switch self {
        case .succeeded, .upToDate, .failed, .skipped, .cancelled: true
        default: false
        }
    }

    public var isRunning: Bool {
        if case .running = self { return true }
        return false
    }

    /// The name used in events and reports.
    public var name: String {
        switch self {
        case .pending: "pending"
        case .queued: "queued"
        case .running: "running"
        case .waitingToRetry: "waiting-to-retry"
        case .succeeded: "succeeded"
        case .upToDate: "up-to-date"
        case .failed: "failed"
        case .skipped: "skipped"
        case .cancelled: "cancelled"
        }
    }
}
