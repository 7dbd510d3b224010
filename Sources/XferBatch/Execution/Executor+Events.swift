extension Executor {
    /// Reports one of the scheduler's events, with the details the scheduler holds. Called
    /// under its lock (`SharedScheduler`), so events keep the order of the state changes.
    func report(_ key: RunEventKey, _ scheduler: borrowing RunScheduler) {
        switch key {
        case .succeeded(let j):
            let lc = scheduler.lifecycles[j]
            let attempt = lc.attempts.last
            let duration = (attempt?.endedAt ?? .zero) - (attempt?.startedAt ?? .zero)
            let r = scheduler.results[j]
            events.handle(.jobSucceeded(id: plan.jobs[j].id, bytes: r?.bytes ?? 0, duration: duration, destination: display(r?.destination ?? ""),
                                        archive: r?.archive, resumedFrom: r?.resumedFrom ?? 0))
        case .upToDate(let j):
            events.handle(.jobUpToDate(id: plan.jobs[j].id, destination: display(scheduler.results[j]?.destination ?? "")))
        case .retrying(let j):
            let lc = scheduler.lifecycles[j]
            if let last = lc.attempts.last, let failure = last.failure {
                events.handle(.jobRetrying(id: plan.jobs[j].id, attempt: last.number, failure: failure, delay: last.delayBeforeNext ?? .zero))
            }
        case .hostHeld(let j, let wait):
            let (host, code) = answer(to: j, scheduler)
            events.handle(.hostHeld(host: host, job: plan.jobs[j].id, code: code, wait: wait))
        case .hostLimited(let j, let connections):
            let (host, code) = answer(to: j, scheduler)
            events.handle(.hostLimited(host: host, job: plan.jobs[j].id, code: code, connections: connections))
        case .hostGivenUp(let j):
            let (host, code) = answer(to: j, scheduler)
            events.handle(.hostGivenUp(host: host, job: plan.jobs[j].id, code: code, jobs: UnansweredHosts.maxJobsInARow))
        case .failed(let j):
            let lc = scheduler.lifecycles[j]
            events.handle(.jobFailed(id: plan.jobs[j].id, reason: lc.reason ?? "failed", attempts: lc.attempts.count))
        case .skipped(let j):
            events.handle(.jobSkipped(id: plan.jobs[j].id, reason: scheduler.lifecycles[j].reason ?? "skipped"))
        case .cancelled(let j):
            events.handle(.jobCancelled(id: plan.jobs[j].id, attempts: scheduler.lifecycles[j].attempts.count))
        }
    }

    /// Which host answered job `j`'s last attempt, and with what code (for host events).
    private func answer(to j: Int, _ scheduler: borrowing RunScheduler) -> (host: String, code: String) {
        (RunScheduler.hostName(plan.jobs[j]), scheduler.lifecycles[j].attempts.last?.failure?.code ?? "an answer")
    }

    /// Paths relative to the manifest's folder when inside it, for shorter log lines.
    func display(_ text: String) -> String {
        text.hasPrefix("/") ? PathText.display(text, relativeTo: plan.directory) : text
    }
}
