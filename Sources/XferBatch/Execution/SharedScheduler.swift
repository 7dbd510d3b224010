import Synchronization

/// The run's `RunScheduler` behind one lock, shared by the tasks that carry out attempts
/// on the run's lanes (a lane: one transfer engine, its thread and its connections).
///
/// A task whose attempt ended settles it here and, in the same critical section, takes the
/// next startable attempt itself: in a steady run each task carries job after job on its
/// lane, and no task is created and no coordinating task woken per job (each was a thread
/// wake-up on the engine's thread, which is what a run of small files waits for). Work the
/// settling task does not carry (several jobs became startable at once, or its lane runs
/// two tasks more than another) is handed over to the executor, which alone adds tasks to
/// its group, each on the lane that has the fewest.
///
/// Invariants: the scheduler changes only under the lock, and every event is reported
/// under it, so events come out in the order of the state changes, as from one loop.
/// `live[lane]` counts the tasks carrying work on that lane plus the work handed over to
/// it and not yet given a task; the run is over when every count is zero, since nothing
/// else can change the scheduler.
final class SharedScheduler: Sendable {
    /// What one task carries out next.
    enum Work: Sendable, Equatable {
        case attempt(job: Int, number: Int)
        /// Wait out a retry delay (holding no slot), then requeue the job.
        case retry(job: Int, after: Duration)
        /// Wait out a held host's pause (`RunScheduler.Effect.holdHost`), then release it.
        case holdHost(host: Int, after: Duration)
    }

    /// Work handed over to the executor, and the lane to give it a task on.
    struct Assignment: Sendable, Equatable {
        var work: Work
        var lane: Int
    }

    /// Reports one event; called under the lock.
    typealias Report = (RunEventKey, borrowing RunScheduler) -> Void

    private struct State {
        var scheduler: RunScheduler
        var interrupted = false
        var live: [Int]
        var handedOver: [Assignment] = []
        var waiter: CheckedContinuation<[Assignment], Never>?
        /// The waits of `wait(_:on:job:)` under way, rung once they cannot lead anywhere.
        var waits: [WaitKey: Alarm] = [:]
        var waitsMade = 0

        var isOver: Bool { live.allSatisfy { $0 == 0 } }

        /// The lane with the fewest tasks (the first of them on a tie).
        var lightestLane: Int { live.indices.min { live[$0] < live[$1] } ?? 0 }
    }

    /// A retry's wait is its job's (a job waits for one retry at a time); a held host's
    /// has a number of its own.
    private enum WaitKey: Hashable {
        case retry(job: Int)
        case hold(Int)
    }

    private let state: Mutex<State>

    init(_ scheduler: RunScheduler, lanes: Int = 1) {
        state = Mutex(State(scheduler: scheduler, live: Array(repeating: 0, count: max(1, lanes))))
    }

    /// Applies `change`, starts what the limits then allow and reports every event.
    /// Returns the work the calling task carries on with, or nil when it should end; the
    /// rest is handed over. `lane` is the calling task's; nil only for the executor's own
    /// call (`begin`), which carries nothing itself.
    ///
    /// The caller carries an attempt if there is one, else any other work (a delay to wait
    /// out on its lane), unless its lane runs two tasks more than the lightest: then all
    /// of it goes to the lightest, so that no engine's thread does most of a run's work.
    ///
    /// A cancelled caller first interrupts the run (once): nothing new starts after that.
    func settle(lane: Int?, at now: Duration, report: Report,
                _ change: (inout RunScheduler, Duration) -> [RunScheduler.Effect]) -> Work? {
        let (next, wake, ended) = state.withLock { s -> (Work?, (CheckedContinuation<[Assignment], Never>, [Assignment])?, [Alarm]) in
            if Task.isCancelled && !s.interrupted {
                s.interrupted = true
                for case .event(let key) in s.scheduler.interrupt(at: now) { report(key, s.scheduler) }
            }
            var works: [Work] = []
            var ended: [Alarm] = []
            for effect in change(&s.scheduler, now) + s.scheduler.startReady(at: now) {
                switch effect {
                case .start(let j, let n): works.append(.attempt(job: j, number: n))
                case .retry(let j, let delay): works.append(.retry(job: j, after: delay))
                case .holdHost(let h, let wait): works.append(.holdHost(host: h, after: wait))
                case .event(let key):
                    report(key, s.scheduler)
                    // A job skipped while waiting to retry (its host given up on) has no retry left to wait for.
                    if case .skipped(let j) = key, let alarm = s.waits.removeValue(forKey: .retry(job: j)) { ended.append(alarm) }
                }
            }
            // Once nothing starts any more, no wait can lead anywhere: end them all.
            if s.scheduler.stopping && !s.waits.isEmpty {
                ended += s.waits.values
                s.waits.removeAll()
            }
            var next: Work? = nil
            if let lane {
                if s.live[lane] <= s.live[s.lightestLane] + 1,
                   let i = works.firstIndex(where: { if case .attempt = $0 { true } else { false } }) ?? works.indices.first {
                    next = works.remove(at: i)
                } else {
                    s.live[lane] -= 1
                }
            }
            for work in works {
                let to = s.lightestLane
                s.live[to] += 1
                s.handedOver.append(Assignment(work: work, lane: to))
            }
            guard let waiter = s.waiter, !s.handedOver.isEmpty || s.isOver else { return (next, nil, ended) }
            s.waiter = nil
            defer { s.handedOver.removeAll() }
            return (next, (waiter, s.handedOver), ended)
        }
        for alarm in ended { alarm.ring() }
        if let (waiter, assignments) = wake { waiter.resume(returning: assignments) }
        return next
    }

    /// Sleeps `duration` on `clock` (job `job`'s retry delay, or with no job a held host's
    /// pause), or less: until the run stops starting jobs, the job is skipped (its host
    /// given up on), or the calling task is cancelled (an interrupt).
    ///
    /// Why: `--fail-fast` stops a run without cancelling its tasks, and a retry waiting out
    /// a `Retry-After` of minutes would keep the run open that long for nothing. The wait
    /// is an `Alarm` registered under the lock, so that `settle` can ring it; a wait that
    /// could lead nowhere already is not begun.
    func wait(_ duration: Duration, on clock: any ExecutionClock, job: Int? = nil) async {
        let alarm = Alarm()
        let key: WaitKey? = state.withLock { s in
            guard !s.scheduler.stopping else { return nil }
            if let job {
                guard case .waitingToRetry = s.scheduler.lifecycles[job].state else { return nil }
                s.waits[.retry(job: job)] = alarm
                return .retry(job: job)
            }
            s.waitsMade += 1
            s.waits[.hold(s.waitsMade)] = alarm
            return .hold(s.waitsMade)
        }
        guard let key else { return }
        let timer = Task {
            _ = try? await clock.sleep(for: duration)
            alarm.ring()
        }
        await withTaskCancellationHandler { await alarm.wait() } onCancel: { alarm.ring() }
        timer.cancel()
        _ = state.withLock { $0.waits.removeValue(forKey: key) }
    }

    /// Waits for work handed over; empty when the run is over. For the executor's task only.
    ///
    /// Not cancellable on purpose: an interrupt reaches the tasks carrying work, whose
    /// settling ends the run, and work handed over must still be given a task so that it
    /// ends (cancelled) and is reported.
    func handedOverWork() async -> [Assignment] {
        await withCheckedContinuation { continuation in
            if let ready = takeHandedOver(orWaitWith: continuation) { continuation.resume(returning: ready) }
        }
    }

    /// The work handed over (empty when the run is over), or nil after keeping
    /// `continuation` to resume when there is some.
    private func takeHandedOver(orWaitWith continuation: CheckedContinuation<[Assignment], Never>) -> [Assignment]? {
        state.withLock { s in
            if s.handedOver.isEmpty && !s.isOver {
                s.waiter = continuation
                return nil
            }
            let ready = s.handedOver
            s.handedOver.removeAll()
            return ready
        }
    }

    /// After the last task: reports what `RunScheduler.finish` says and returns the final
    /// scheduler, and whether the run was interrupted.
    func finish(at now: Duration, report: Report) -> (scheduler: RunScheduler, interrupted: Bool) {
        state.withLock { s in
            for case .event(let key) in s.scheduler.finish(at: now) { report(key, s.scheduler) }
            return (s.scheduler, s.interrupted)
        }
    }
}
