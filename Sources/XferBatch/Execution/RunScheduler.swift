import XferCurl

/// The bookkeeping of a run, without I/O: which jobs are ready, which may start under the
/// limits, what a finished attempt releases or skips. Methods return `Effect`s for the
/// executor to carry out, so the whole policy is testable with no network and no clock.
///
/// Ready jobs start by priority (higher first), then the longest remaining chain of
/// dependents (long chains first), then manifest order. Limits hold at every instant:
/// at most `limits.concurrency` attempts run, at most `limits.perHost` per host; a job
/// waiting out a retry delay holds no slot.
///
/// A server that asks for a pause (`Retry-After`, or 429 Too Many Requests) is asking the
/// client, not one URL: every job for that host waits it out, not only the one answered,
/// or a mirror of 2,000 files went on asking and each job spent its attempts on 429s. The
/// host waits as long as the answered job waits for its retry, so not at all when that job
/// gives up (a wait past `maxRetryAfter`: a maintenance window). And only a few times in a
/// row without a success between: holds let `perHost` jobs ask per wait, so a host that
/// refused for good (a quota spent for the day) would hold 2,000 jobs for hours where
/// failing them takes minutes.
///
/// An FTP server that refuses a connection beyond its limit per address (421) has told
/// how many it takes: the host runs no more at once than it did then. With the default
/// `perHost` of 4 against vsftpd's `max_per_ip=2`, 8 of 60 jobs spent their five attempts
/// on refusals.
///
/// A host that answers none of several jobs in a row is given up on for the rest of the
/// run (`UnansweredHosts`): its jobs not started are skipped, where each would have spent
/// all its attempts waiting out the same timeouts.
struct RunScheduler {
    enum Effect: Equatable {
        case start(job: Int, attempt: Int)
        case retry(job: Int, after: Duration)
        /// Host `host` (as `ReadyQueue` numbers them) is held; call `hostWaitEnded` after.
        case holdHost(host: Int, after: Duration)
        case event(RunEventKey)
    }

    let plan: Plan
    let failFast: Bool
    private(set) var lifecycles: [JobLifecycle]
    private(set) var results: [AttemptResult?]
    /// Bytes written or sent by attempts that ended without success: a download cut off
    /// (its bytes stay in the partial file) or interrupted, an upload broken off. They went
    /// over the network and onto the disk, so the run's total counts them.
    private(set) var failedAttemptBytes: Int64 = 0
    private(set) var stopping = false
    /// Why the run stopped starting jobs, other than an interrupt (`--fail-fast`, a
    /// checkpoint that could not be saved): a retry is not waited for after that.
    private var stopCause: String?
    private(set) var running = 0
    private var unmet: [Int]
    private var ready: ReadyQueue
    /// Held hosts, and until when.
    private var hostWaits: [Int: Duration] = [:]
    /// Per host, the holds since its last success.
    private var holdsInARow: [Int: Int] = [:]
    /// Holds of a host in a row, without a success between, after which it is no longer held.
    static let maxHoldsInARow = 3
    /// Hosts that answer nothing, and those given up on.
    private var unanswered: UnansweredHosts

    init(plan: Plan, failFast: Bool) {
        self.plan = plan
        self.failFast = failFast
        self.lifecycles = plan.jobs.map { JobLifecycle(policy: $0.transfer?.retry ?? RetryPolicy()) }
        self.results = Array(repeating: nil, count: plan.jobs.count)
        self.unanswered = UnansweredHosts(jobs: plan.jobs.count)
        // A closure, not `\.count`: a key path to a computed property is read through
        // the runtime (`swift_getAtKeyPath`), about 700 instructions a job.
        self.unmet = plan.graph.dependencies.map { $0.count }
        self.ready = ReadyQueue(plan: plan)
    }

    /// The host messages name for a job: its URL's `host:port`, or "local" for a job
    /// without one (an archive or extraction), as for a `file:` or `data:` URL.
    static func hostName(_ job: PlannedJob) -> String {
        job.url?.hostKey ?? "local"
    }

    /// Jobs without dependencies become ready, and the first ones start.
    mutating func begin(at now: Duration) -> [Effect] {
        var effects: [Effect] = []
        for j in plan.jobs.indices where unmet[j] == 0 { effects += makeReady(j, at: now) }
        return effects + startReady(at: now)
    }

    /// Starts ready jobs while the limits allow.
    mutating func startReady(at now: Duration) -> [Effect] {
        guard !stopping else { return [] }
        var effects: [Effect] = []
        // A job whose host is full waits; one for another host may go first.
        while running < plan.limits.concurrency, let j = ready.next() {
            if case .startAttempt(let n) = lifecycles[j].slotGranted(at: now) {
                running += 1
                ready.started(j)
                effects.append(.start(job: j, attempt: n))
            }
        }
        return effects
    }

    /// An attempt ended. `unit` in [0, 1) draws the retry jitter; `moved` is what a failed
    /// attempt wrote or sent before it ended (a success counts its `AttemptResult`).
    mutating func attemptEnded(_ j: Int, _ result: Result<AttemptResult, JobFailure>, at now: Duration, unit: Double,
                               moved: Int64 = 0) -> [Effect] {
        running -= 1
        ready.ended(j)
        if let h = ready.host(of: j) { unanswered.attemptEnded(j, host: h, result, moved: moved) }
        switch result {
        case .success(let r):
            results[j] = r
            if let h = ready.host(of: j) { holdsInARow[h] = nil }
            _ = lifecycles[j].attemptSucceeded(upToDate: r.upToDate, at: now)
            return [.event(r.upToDate ? .upToDate(j) : .succeeded(j))] + release(j, ok: true, at: now)
        case .failure(let failure):
            failedAttemptBytes += moved
            let limited = lowerCap(of: j, after: failure)
            let policy = lifecycles[j].policy
            let delay = policy.delay(afterAttempt: lifecycles[j].attempts.count, retryAfter: failure.retryAfter, unit: unit)
            switch lifecycles[j].attemptFailed(failure, delay: delay, at: now) {
            case .scheduleRetry(let d):
                // Stopping: no retry is waited for. An interrupt that met the attempt failing
                // on its own (a refused connection as the signal came) ends it cancelled.
                if let cause = stopCause {
                    _ = lifecycles[j].skip(because: "not retried: \(cause)", at: now)
                    return limited + [.event(.skipped(j))] + release(j, ok: false, at: now)
                } else if stopping {
                    _ = lifecycles[j].interrupt(at: now)
                    return limited + [.event(.cancelled(j))] + release(j, ok: false, at: now)
                }
                return limited + [.event(.retrying(j)), .retry(job: j, after: d)] + holdHost(of: j, after: failure, for: d, at: now)
            case .finished(.cancelled):
                return [.event(.cancelled(j))] + release(j, ok: false, at: now)
            default:
                var effects: [Effect] = limited + [.event(.failed(j))]
                effects += release(j, ok: plan.jobs[j].optional, at: now)
                effects += giveUpHostIfUnanswered(after: j, failure, moved: moved, at: now)
                if failure.stopsTheRun && !stopping {
                    effects += stop(because: "the run stopped when \(plan.jobs[j].id) could not record its progress", at: now)
                } else if failFast && !stopping {
                    effects += stop(because: "--fail-fast after \(plan.jobs[j].id) failed", at: now)
                }
                return effects
            }
        }
    }

    /// A retry delay passed, or its wait was ended early (`SharedScheduler.wait`).
    mutating func retryDue(_ j: Int, at now: Duration) -> [Effect] {
        // Stopping ended every job waiting to retry already (skipped or cancelled); this
        // only guards against one left over.
        if stopping {
            if case .finished = lifecycles[j].interrupt(at: now) { return [.event(.cancelled(j))] }
            return []
        }
        if let skipped = skipIfHostGivenUp(j, at: now) { return skipped }
        if case .enqueue = lifecycles[j].retryDue(at: now) { ready.add(j) }
        return []
    }

    /// A held host's wait may have passed (`holdHost`'s effect); its jobs may start again
    /// unless a later answer asked for a longer wait.
    mutating func hostWaitEnded(_ h: Int, at now: Duration) -> [Effect] {
        guard let until = hostWaits[h], now >= until else { return [] }
        hostWaits[h] = nil
        ready.release(h)
        return []
    }

    /// Whether `failure` asks the client to pause: a `Retry-After`, or a 429 (too many
    /// requests: from this client, whichever job it answered).
    static func asksForAPause(_ failure: JobFailure) -> Bool {
        (failure.retryAfter ?? .zero) > .zero || failure.httpStatus == 429
    }

    /// Holds `j`'s host for `wait` (the delay before the job's retry: the `Retry-After`, or
    /// its backoff) when the failure asks for a pause, unless the host was held
    /// `maxHoldsInARow` times since its last success. Attempts under way go on; ready jobs,
    /// the answered job's retry included, start after.
    private mutating func holdHost(of j: Int, after failure: JobFailure, for wait: Duration, at now: Duration) -> [Effect] {
        guard !stopping, wait > .zero, Self.asksForAPause(failure), let h = ready.host(of: j),
              holdsInARow[h, default: 0] < Self.maxHoldsInARow else { return [] }
        let until = now + wait
        guard until > hostWaits[h] ?? .zero else { return [] }  // already held as long
        ready.hold(h)
        holdsInARow[h, default: 0] += 1
        hostWaits[h] = until
        return [.event(.hostHeld(j, wait)), .holdHost(host: h, after: wait)]
    }

    /// After a refused connection (`TransferError.tooManyConnections`), `j`'s host runs no
    /// more jobs at once than it runs now.
    private mutating func lowerCap(of j: Int, after failure: JobFailure) -> [Effect] {
        guard failure.code == TransferError.tooManyConnections, let h = ready.host(of: j), let cap = ready.lowerCap(h) else { return [] }
        return [.event(.hostLimited(j, cap))]
    }

    /// Interrupted: nothing new starts; jobs not running end cancelled. Running attempts
    /// are cancelled by the executor and end through `attemptEnded`.
    mutating func interrupt(at now: Duration) -> [Effect] {
        stopping = true
        ready.removeAll()
        var effects: [Effect] = []
        for j in plan.jobs.indices {
            if case .finished = lifecycles[j].interrupt(at: now) { effects.append(.event(.cancelled(j))) }
        }
        return effects
    }

    /// After the last event: anything not final (which would be a bug) is reported skipped.
    mutating func finish(at now: Duration) -> [Effect] {
        skipAllWaiting(notStarted: "never became ready", notRetried: "never became ready", at: now)
    }

    /// The run starts no more jobs and retries none: waiting jobs are skipped at once, those
    /// waiting to retry included (their delay could be a `Retry-After` of minutes, which the
    /// run would otherwise sit out only to end them). Attempts under way go on.
    private mutating func stop(because cause: String, at now: Duration) -> [Effect] {
        stopping = true
        stopCause = cause
        return skipAllWaiting(notStarted: "not started: \(cause)", notRetried: "not retried: \(cause)", at: now)
    }

    // MARK: Dependencies

    /// A finished job releases its dependents: on success (or an optional job's failure)
    /// they may become ready; otherwise every job downstream is skipped, naming it.
    private mutating func release(_ j: Int, ok: Bool, at now: Duration) -> [Effect] {
        var effects: [Effect] = []
        if ok {
            for d in plan.graph.dependents[j] {
                unmet[d] -= 1
                if unmet[d] == 0 && lifecycles[d].state == .pending { effects += makeReady(d, at: now) }
            }
            return effects
        }
        let reason = "dependency \(plan.jobs[j].id) failed"
        var stack = plan.graph.dependents[j]
        while let d = stack.popLast() {
            if case .finished = lifecycles[d].skip(because: reason, at: now) {
                effects.append(.event(.skipped(d)))
                stack += plan.graph.dependents[d]
            }
        }
        return effects
    }

    /// Skips every job neither finished nor running, giving `notRetried` as the reason for
    /// those waiting to retry and `notStarted` for the rest.
    private mutating func skipAllWaiting(notStarted: String, notRetried: String, at now: Duration) -> [Effect] {
        ready.removeAll()
        var effects: [Effect] = []
        for j in plan.jobs.indices where !lifecycles[j].state.isFinal && !lifecycles[j].state.isRunning {
            let why = if case .waitingToRetry = lifecycles[j].state { notRetried } else { notStarted }
            if case .finished = lifecycles[j].skip(because: why, at: now) { effects.append(.event(.skipped(j))) }
        }
        return effects
    }

    /// After job `j` failed for good: gives its host up when it answered none of
    /// `UnansweredHosts.maxJobsInARow` jobs in a row, skipping the host's ready jobs and
    /// those waiting to retry (at once: their delays would only keep the run open).
    private mutating func giveUpHostIfUnanswered(after j: Int, _ failure: JobFailure, moved: Int64, at now: Duration) -> [Effect] {
        guard let h = ready.host(of: j),
              unanswered.jobFailed(j, host: h, failure, moved: moved, hostName: Self.hostName(plan.jobs[j]), jobID: plan.jobs[j].id)
        else { return [] }
        var effects: [Effect] = [.event(.hostGivenUp(j))]
        for k in ready.removeAll(ofHost: h) { effects += skipIfHostGivenUp(k, at: now) ?? [] }
        for k in plan.jobs.indices where ready.host(of: k) == h {
            if case .waitingToRetry = lifecycles[k].state { effects += skipIfHostGivenUp(k, at: now) ?? [] }
        }
        return effects
    }

    /// Skips job `j` when its host was given up on (and what depends on it, unless `j` is
    /// optional); nil when it was not.
    private mutating func skipIfHostGivenUp(_ j: Int, at now: Duration) -> [Effect]? {
        guard let h = ready.host(of: j), let cause = unanswered.givenUp[h] else { return nil }
        let why = (lifecycles[j].attempts.isEmpty ? "not started: " : "not retried: ") + cause
        guard case .finished = lifecycles[j].skip(because: why, at: now) else { return [] }
        return [.event(.skipped(j))] + release(j, ok: plan.jobs[j].optional, at: now)
    }

    private mutating func makeReady(_ j: Int, at now: Duration) -> [Effect] {
        if let skipped = skipIfHostGivenUp(j, at: now) { return skipped }
        if case .enqueue = lifecycles[j].dependenciesSatisfied(at: now) { ready.add(j) }
        return []
    }
}

/// Which event an effect asks for; the executor fills in the details.
enum RunEventKey: Equatable {
    case succeeded(Int), upToDate(Int), retrying(Int), failed(Int), skipped(Int), cancelled(Int)
    /// Job `j`'s answer held its host for the duration.
    case hostHeld(Int, Duration)
    /// Job `j`'s refused connection limited its host to this many at once.
    case hostLimited(Int, Int)
    /// Job `j` made its host one given up on (`UnansweredHosts`).
    case hostGivenUp(Int)
}
