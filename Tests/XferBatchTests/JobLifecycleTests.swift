import Testing
@testable import XferBatch

/// The state machine alone: no I/O, no clock.
@Suite("Job lifecycle")
struct JobLifecycleTests {
    let transient = JobFailure(kind: .transient, code: "HTTP 503", message: "unavailable")

    @Test func aJobGoesFromPendingThroughQueuedAndRunningToSucceeded() {
        var job = JobLifecycle(policy: RetryPolicy())
        #expect(job.dependenciesSatisfied(at: .seconds(1)) == .enqueue)
        #expect(job.slotGranted(at: .seconds(2)) == .startAttempt(1))
        #expect(job.attemptSucceeded(at: .seconds(3)) == .finished(.succeeded))
        #expect(job.history.map(\.state) == [.pending, .queued, .running(attempt: 1), .succeeded])
        #expect(job.history.map(\.at) == [.zero, .seconds(1), .seconds(2), .seconds(3)])
    }

    @Test func aTransientFailureWaitsWithoutASlotThenQueuesAgain() {
        var job = JobLifecycle(policy: RetryPolicy(attempts: 2))
        _ = job.dependenciesSatisfied(at: .zero)
        _ = job.slotGranted(at: .zero)
        #expect(job.attemptFailed(transient, delay: .seconds(4), at: .seconds(1)) == .scheduleRetry(after: .seconds(4)))
        #expect(job.state == .waitingToRetry(attempt: 1))
        #expect(job.retryDue(at: .seconds(5)) == .enqueue)
        #expect(job.slotGranted(at: .seconds(5)) == .startAttempt(2))
        #expect(job.attemptFailed(transient, delay: .seconds(4), at: .seconds(6)) == .finished(.failed), "no attempts left")
        #expect(job.reason == "HTTP 503: unavailable")
    }

    @Test func eventsThatDoNotApplyChangeNothing() {
        var job = JobLifecycle(policy: RetryPolicy())
        #expect(job.slotGranted(at: .zero) == .none, "not queued yet")
        #expect(job.attemptSucceeded(at: .zero) == .none)
        #expect(job.retryDue(at: .zero) == .none)
        #expect(job.history.count == 1)
    }

    @Test func finalStatesAreFinal() {
        var job = JobLifecycle(policy: RetryPolicy())
        #expect(job.skip(because: "dependency a failed", at: .zero) == .finished(.skipped))
        #expect(job.dependenciesSatisfied(at: .zero) == .none)
        #expect(job.interrupt(at: .zero) == .none)
        #expect(job.skip(because: "again", at: .zero) == .none)
        #expect(job.reason == "dependency a failed")
    }

    @Test func anInterruptCancelsAWaitingJobButNotARunningOne() {
        var waiting = JobLifecycle(policy: RetryPolicy())
        _ = waiting.dependenciesSatisfied(at: .zero)
        #expect(waiting.interrupt(at: .zero) == .finished(.cancelled))
        var running = JobLifecycle(policy: RetryPolicy())
        _ = running.dependenciesSatisfied(at: .zero)
        _ = running.slotGranted(at: .zero)
        #expect(running.interrupt(at: .zero) == .none, "the executor cancels the transfer; the attempt reports back")
        let cancelled = JobFailure(kind: .cancelled, code: "cancelled", message: "cancelled")
        #expect(running.attemptFailed(cancelled, delay: .zero, at: .zero) == .finished(.cancelled))
    }

    /// A job skipped or interrupted while waiting to retry says so, and its last attempt
    /// shows no delay before a next one, since none followed.
    @Test(arguments: [true, false])
    func aJobEndedWhileWaitingToRetryShowsNoDelayBeforeANextAttempt(interrupted: Bool) {
        var job = JobLifecycle(policy: RetryPolicy())
        _ = job.dependenciesSatisfied(at: .zero)
        _ = job.slotGranted(at: .zero)
        let busy = JobFailure(kind: .transient, code: "HTTP 503", message: "unavailable")
        #expect(job.attemptFailed(busy, delay: .seconds(2), at: .zero) == .scheduleRetry(after: .seconds(2)))
        #expect(job.attempts.last?.delayBeforeNext == .seconds(2))
        if interrupted {
            #expect(job.interrupt(at: .seconds(1)) == .finished(.cancelled))
            #expect(job.reason == "interrupted while waiting to retry")
        } else {
            #expect(job.skip(because: "not retried: --fail-fast after a failed", at: .seconds(1)) == .finished(.skipped))
        }
        #expect(job.attempts.count == 1)
        #expect(job.attempts.last?.delayBeforeNext == nil)
    }

    @Test(arguments: [(1, 0.5, 500), (2, 0.5, 1000), (3, 0.5, 2000), (10, 0.5, 15000), (1, 0.0, 0)])
    func backoffIsExponentialWithFullJitterUnderTheCap(attempt: Int, unit: Double, milliseconds: Int64) {
        let policy = RetryPolicy(attempts: 20, initialDelay: .seconds(1), maxDelay: .seconds(30))
        #expect(policy.delay(afterAttempt: attempt, retryAfter: nil, unit: unit) == .milliseconds(milliseconds))
    }

    @Test func retryAfterReplacesTheBackoff() {
        let policy = RetryPolicy()
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(42), unit: 0.9) == .seconds(42))
    }

    /// `Retry-After: 0`, or a date already past, would send every remaining attempt at once.
    @Test func aRetryAfterOfZeroLeavesTheBackoffInPlace() {
        let policy = RetryPolicy(attempts: 20, initialDelay: .seconds(1), maxDelay: .seconds(30))
        #expect(policy.delay(afterAttempt: 3, retryAfter: .zero, unit: 0.5) == .seconds(2))
    }
}
