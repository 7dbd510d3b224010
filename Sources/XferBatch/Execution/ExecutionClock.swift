/// The executor's sense of time: elapsed time since the run started, and sleeping.
///
/// A seam so that tests replace it with a virtual clock (retry delays then pass
/// instantly and deterministically).
public protocol ExecutionClock: Sendable {
    /// Time since the run started.
    func now() -> Duration
    /// Suspends for `duration`; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// Real time, from `ContinuousClock`.
public struct ContinuousExecutionClock: ExecutionClock {
    private let start = ContinuousClock.now

    public init() {}

    public func now() -> Duration { ContinuousClock.now - start }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
