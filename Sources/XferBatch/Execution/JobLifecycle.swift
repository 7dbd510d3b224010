/// The life of one job as a pure state machine: no I/O, no clock, no randomness of its
/// own. Each method takes what happened and returns what the executor must do next.
///
/// Every change of state goes through `transition(to:)`, which records it (with the time
/// the caller passed), so a job's history can be reported and tested exactly.
public struct JobLifecycle: Sendable {
    /// What the executor must do after an event.
    public enum Action: Sendable, Equatable {
        /// Put the job in the ready queue.
        case enqueue
        /// Start attempt `n` now (a slot was granted).
        case startAttempt(Int)
        /// Wait `delay` (no slot held), then call `retryDue`.
        case scheduleRetry(after: Duration)
        /// The job is finished; release dependents (or skip them, on failure).
        case finished(JobState)
        /// Nothing to do.
        case none
    }

    /// One attempt, for reports.
    public struct Attempt: Sendable, Equatable {
        public var number: Int
        public var startedAt: Duration
        public var endedAt: Duration?
        public var failure: JobFailure?
        /// Delay chosen before the next attempt, if one followed.
        public var delayBeforeNext: Duration?
    }

    public let policy: RetryPolicy
    public private(set) var state: JobState = .pending
    public private(set) var attempts: [Attempt] = []
    /// Every state entered, with the time given by the caller (run clock).
    public private(set) var history: [(state: JobState, at: Duration)] = [(.pending, .zero)]
    /// Why the job was skipped, failed or cancelled.
    public private(set) var reason: String?

    public init(policy: RetryPolicy) {
        self.policy = policy
    }

    /// All dependencies finished well: the job may run.
    public mutating func dependenciesSatisfied(at now: Duration) -> Action {
        guard state == .pending else { return .none }
        transition(to: .queued, at: now)
        return .enqueue
    }

    /// The job will not run: a dependency failed, or the run stopped starting jobs
    /// (`--fail-fast`, or a checkpoint that could not be saved).
    public mutating func skip(because why: String, at now: Duration) -> Action {
        guard !state.isFinal, !state.isRunning else { return .none }
        reason = why
        forgoRetry()
        transition(to: .skipped, at: now)
        return .finished(.skipped)
    }

    /// The scheduler granted a slot.
    public mutating func slotGranted(at now: Duration) -> Action {
        guard state == .queued else { return .none }
        let number = attempts.count + 1
        attempts.append(Attempt(number: number, startedAt: now))
        transition(to: .running(attempt: number), at: now)
        return .startAttempt(number)
    }

    /// The attempt under way succeeded (or found the work already done: `upToDate`).
    public mutating func attemptSucceeded(upToDate: Bool = false, at now: Duration) -> Action {
        guard case .running = state else { return .none }
        attempts[attempts.count - 1].endedAt = now
        let final: JobState = upToDate ? .upToDate : .succeeded
        transition(to: final, at: now)
        return .finished(final)
    }

    /// The attempt under way failed. Transient failures are retried while attempts remain,
    /// after `delay` (the executor draws it with `RetryPolicy.delay`); others end the job.
    public mutating func attemptFailed(_ failure: JobFailure, delay: Duration, at now: Duration) -> Action {
        guard case .running = state else { return .none }
        attempts[attempts.count - 1].endedAt = now
        attempts[attempts.count - 1].failure = failure
        if failure.kind == .cancelled {
            reason = "interrupted"
            transition(to: .cancelled, at: now)
            return .finished(.cancelled)
        }
        if failure.kind == .transient, attempts.count < policy.attempts {
            if let asked = failure.retryAfter, asked > policy.maxRetryAfter {
                reason = "\(failure) (the server asked to wait \(DurationText.format(asked)), more than maxRetryAfter \(DurationText.format(policy.maxRetryAfter)))"
                transition(to: .failed, at: now)
                return .finished(.failed)
            }
            attempts[attempts.count - 1].delayBeforeNext = delay
            transition(to: .waitingToRetry(attempt: attempts.count), at: now)
            return .scheduleRetry(after: delay)
        }
        reason = failure.description
        transition(to: .failed, at: now)
        return .finished(.failed)
    }

    /// The retry delay has passed: back into the ready queue.
    public mutating func retryDue(at now: Duration) -> Action {
        guard case .waitingToRetry = state else { return .none }
        transition(to: .queued, at: now)
        return .enqueue
    }

    /// The run is stopping: a job not yet finished ends cancelled (running attempts are
    /// cancelled by the executor and report back through `attemptFailed`).
    public mutating func interrupt(at now: Duration) -> Action {
        switch state {
        case .pending, .queued, .waitingToRetry:
            reason = attempts.isEmpty ? "interrupted before it ran" : "interrupted while waiting to retry"
            forgoRetry()
            transition(to: .cancelled, at: now)
            return .finished(.cancelled)
        default:
            return .none
        }
    }

    /// A job waiting to retry ends without the retry: its last attempt's delay was never
    /// waited out, and the report must not show one.
    private mutating func forgoRetry() {
        if case .waitingToRetry = state { attempts[attempts.count - 1].delayBeforeNext = nil }
    }

    /// The single place where `state` changes.
    private mutating func transition(to next: JobState, at now: Duration) {
        state = next
        history.append((next, now))
    }
}
