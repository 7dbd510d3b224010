import Synchronization

/// The run's `RunScheduler` behind one lock, shared by the tasks that carry out attempts.
///
/// A task whose attempt ended settles it here and, in the same critical section, takes the
/// next startable attempt itself. In a steady run one task so carries job after job: no
/// task is created and no coordinating task is woken per job. (Each of those was a thread
/// wake-up; together they were a sixth of the pool threads' time in `perf`, see
/// bench/run-cpu.) Work the settling task cannot carry (several jobs became startable at
/// once, a retry delay to wait out) is handed over to the executor, which alone can add
/// tasks to its group.
///
/// Invariants: the scheduler changes only under the lock, and every effect is reported
/// under it, so events come out in the order of the state changes, as from one loop.
/// `live` counts tasks carrying work plus work handed over and not yet given a task; the
/// run is over when it reaches zero, since nothing else can change the scheduler.
final class SharedScheduler: Sendable {
    /// What one task carries out next.
    enum Work: Sendable, Equatable {
        case attempt(job: Int, number: Int)
        /// Wait out a retry delay (holding no slot), then requeue the job.
        case retry(job: Int, after: Duration)
    }

    /// Reports one effect (an event, or an attempt starting); called under the lock.
    typealias Report = (RunScheduler.Effect, borrowing RunScheduler) -> Void

    private struct State: ~Copyable {
        var scheduler: RunScheduler
        var interrupted = false
        var live = 0
        var handedOver: [Work] = []
        var waiter: CheckedContinuation<[Work], Never>?
    }

    private let state: Mutex<State>

    init(_ scheduler: RunScheduler) {
        state = Mutex(State(scheduler: scheduler))
    }

    /// Applies `change`, starts what the limits then allow and reports every effect.
    /// Returns the work the calling task carries on with (an attempt if there is one), or
    /// nil when it should end; the rest is handed over. `byTask` is false only for the
    /// executor's first call (`begin`), which carries nothing itself.
    ///
    /// A cancelled caller first interrupts the run (once): nothing new starts after that.
    func settle(byTask: Bool, at now: Duration, report: Report,
                _ change: (inout RunScheduler, Duration) -> [RunScheduler.Effect]) -> Work? {
        let (next, wake) = state.withLock { s -> (Work?, (CheckedContinuation<[Work], Never>, [Work])?) in
            if Task.isCancelled && !s.interrupted {
                s.interrupted = true
                for effect in s.scheduler.interrupt(at: now) { report(effect, s.scheduler) }
            }
            var works: [Work] = []
            for effect in change(&s.scheduler, now) + s.scheduler.startReady(at: now) {
                switch effect {
                case .start(let j, let n): works.append(.attempt(job: j, number: n))
                case .retry(let j, let delay): works.append(.retry(job: j, after: delay))
                case .event: break
                }
                report(effect, s.scheduler)
            }
            var next: Work? = nil
            if byTask {
                if let i = works.firstIndex(where: { if case .attempt = $0 { true } else { false } }) ?? works.indices.first {
                    next = works.remove(at: i)
                } else {
                    s.live -= 1
                }
            }
            s.live += works.count
            s.handedOver += works
            guard let waiter = s.waiter, !s.handedOver.isEmpty || s.live == 0 else { return (next, nil) }
            s.waiter = nil
            defer { s.handedOver.removeAll() }
            return (next, (waiter, s.handedOver))
        }
        if let (waiter, works) = wake { waiter.resume(returning: works) }
        return next
    }

    /// Waits for work handed over; empty when the run is over. For the executor's task only.
    ///
    /// Not cancellable on purpose: an interrupt reaches the tasks carrying work, whose
    /// settling ends the run, and handed-over work must still be given a task so that it
    /// ends (cancelled) and is reported.
    func handedOverWork() async -> [Work] {
        await withCheckedContinuation { continuation in
            let ready: [Work]? = state.withLock { s in
                guard s.handedOver.isEmpty && s.live > 0 else {
                    defer { s.handedOver.removeAll() }
                    return s.handedOver
                }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// After the last task: reports what `RunScheduler.finish` says and returns the
    /// final scheduler, and whether the run was interrupted.
    func finish(at now: Duration, report: Report) -> (RunScheduler, interrupted: Bool) {
        state.withLock { s in
            for effect in s.scheduler.finish(at: now) { report(effect, s.scheduler) }
            return (s.scheduler, s.interrupted)
        }
    }
}
