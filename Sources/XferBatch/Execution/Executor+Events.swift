import Logging

extension Executor {
    /// Reports one scheduler effect as an event (called under the scheduler's lock, so
    /// events keep the order of the state changes).
    func report(_ effect: RunScheduler.Effect, _ scheduler: borrowing RunScheduler) {
        switch effect {
        case .start(let j, let attempt):
            let job = plan.jobs[j]
            events.handle(.jobStarted(id: job.id, attempt: attempt, source: display(job.source), destination: display(job.destination)))
            logger.debug("job started", metadata: ["job.id": "\(job.id)", "job.attempt": "\(attempt)"])
        case .retry:
            break  // reported as `.retrying` with the failure
        case .event(let key):
            report(key, scheduler)
        }
    }

    private func report(_ key: RunEventKey, _ scheduler: borrowing RunScheduler) {
        switch key {
        case .succeeded(let j):
            let lc = scheduler.lifecycles[j]
            let attempt = lc.attempts.last
            let duration = (attempt?.endedAt ?? .zero) - (attempt?.startedAt ?? .zero)
            let r = scheduler.results[j]
            events.handle(.jobSucceeded(id: plan.jobs[j].id, bytes: r?.bytes ?? 0, duration: duration, destination: display(r?.destination ?? ""),
                                        archive: r?.archive))
        case .upToDate(let j):
            events.handle(.jobUpToDate(id: plan.jobs[j].id, destination: display(scheduler.results[j]?.destination ?? "")))
        case .retrying(let j):
            let lc = scheduler.lifecycles[j]
            if let last = lc.attempts.last, let failure = last.failure {
                events.handle(.jobRetrying(id: plan.jobs[j].id, attempt: last.number, failure: failure, delay: last.delayBeforeNext ?? .zero))
            }
        case .failed(let j):
            let lc = scheduler.lifecycles[j]
            events.handle(.jobFailed(id: plan.jobs[j].id, reason: lc.reason ?? "failed", attempts: lc.attempts.count))
        case .skipped(let j):
            events.handle(.jobSkipped(id: plan.jobs[j].id, reason: scheduler.lifecycles[j].reason ?? "skipped"))
        case .cancelled(let j):
            events.handle(.jobCancelled(id: plan.jobs[j].id))
        }
    }

    /// Paths relative to the manifest's folder when inside it, for shorter log lines.
    func display(_ text: String) -> String {
        text.hasPrefix("/") ? PathText.display(text, relativeTo: plan.directory) : text
    }
}
