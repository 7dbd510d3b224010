import Logging
import XferCurl

/// Runs a `Plan`: the scheduling loop around `RunScheduler`, with attempts as child tasks.
///
/// Each attempt runs in its own child task and reports back to this loop, which is the
/// only place state changes; retry delays are child tasks too (sleeping on the
/// `ExecutionClock`, holding no slot). Cancelling the task that runs `run()` is the
/// interrupt: nothing new starts, transfers are cancelled (partial files stay), and every
/// job not finished ends `cancelled`.
public final class Executor: Sendable {
    public struct Options: Sendable {
        /// Stop starting new jobs after the first failure.
        public var failFast = false
        /// Where progress is kept between runs (resume, up-to-date); nil: no state.
        public var checkpoints: (any CheckpointStore)?
        /// Send uploads again even when their source did not change (`--force`).
        public var force = false
        /// How often a resumable download's partial is flushed to the disk and its length
        /// recorded, for resuming after a reboot or power loss (nil: never).
        public var durableInterval: Duration?

        /// Measured with `bench/big-fetch` on this disk (see the README): flushing every
        /// 5 s cost no measurable time on a 1 GiB download; a reboot costs at most the
        /// last 5 s of a download.
        public static let defaultDurableInterval: Duration = .seconds(5)

        public init(failFast: Bool = false, checkpoints: (any CheckpointStore)? = nil, force: Bool = false,
                    durableInterval: Duration? = defaultDurableInterval) {
            self.failFast = failFast
            self.checkpoints = checkpoints
            self.force = force
            self.durableInterval = durableInterval
        }
    }

    let plan: Plan
    let transport: any Transport
    let clock: any ExecutionClock
    let events: any EventSink
    let environment: [String: String]
    let options: Options
    let random: @Sendable () -> Double
    let logger: Logger
    /// The transfers under way, for displays that poll.
    public let progress: ProgressBoard

    public init(plan: Plan, transport: any Transport, clock: any ExecutionClock = ContinuousExecutionClock(),
                events: any EventSink, environment: [String: String], options: Options = Options(),
                logger: Logger = Logger(label: "xferbatch.executor"), board: ProgressBoard = ProgressBoard(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.progress = board
        self.plan = plan
        self.transport = transport
        self.clock = clock
        self.events = events
        self.environment = environment
        self.options = options
        self.logger = logger
        self.random = random
    }

    private enum Event: Sendable {
        case attemptEnded(Int, Result<AttemptResult, JobFailure>)
        case retryDue(Int)
        case hostWaitEnded(Int)
    }

    /// Runs every job; returns when each has ended (or the run was interrupted).
    ///
    /// The scheduling loop and the attempts run where the transport prefers
    /// (`Transport.taskExecutor`: the engine's thread), so a finished transfer is followed
    /// up without a hand-off between threads.
    public func run() async -> RunResult {
        await withTaskExecutorPreference(transport.taskExecutor) { await runJobs() }
    }

    private func runJobs() async -> RunResult {
        let startedAt = clock.now()
        var runner = JobRunner(transport: transport, secrets: SecretResolver(environment: environment), claims: PathClaims(plan: plan),
                               outputs: RunOutputs(), outputDirectory: plan.outputDirectory,
                               bandwidth: plan.limits.bandwidth.map(SharedBandwidth.init), checkpoints: options.checkpoints,
                               forceUploads: options.force)
        runner.durableInterval = options.durableInterval
        runner.runFolders = plan.runFolders
        if let store = options.checkpoints {
            runner.packed = PackedSources(plan: plan, store: store)
            runner.renamed = RenamedJobs(plan: plan, store: store)
        }
        var scheduler = RunScheduler(plan: plan, failFast: options.failFast)
        events.handle(.runStarted(jobs: plan.jobs.count, name: plan.name, selection: plan.selection))
        var interrupted = false
        await withTaskGroup(of: Event.self) { group in
            carryOut(scheduler.begin(at: clock.now()), scheduler, group: &group, runner: runner)
            while let event = await group.next() {
                if Task.isCancelled && !interrupted {
                    interrupted = true
                    carryOut(scheduler.interrupt(at: clock.now()), scheduler, group: &group, runner: runner)
                }
                switch event {
                case .attemptEnded(let j, let result):
                    if case .success(let r) = result { runner.outputs.record(r.destination, for: plan.jobs[j].id) }
                    // Jitter is drawn only for a failure: each draw from the system generator
                    // is a getrandom(2) call, one per job otherwise (2,000 in bench/run-cpu).
                    let unit = if case .failure = result { random() } else { 0.0 }
                    let effects = scheduler.attemptEnded(j, result, at: clock.now(), unit: unit)
                    carryOut(effects, scheduler, group: &group, runner: runner)
                case .retryDue(let j):
                    carryOut(scheduler.retryDue(j, at: clock.now()), scheduler, group: &group, runner: runner)
                case .hostWaitEnded(let h):
                    carryOut(scheduler.hostWaitEnded(h, at: clock.now()), scheduler, group: &group, runner: runner)
                }
                carryOut(scheduler.startReady(at: clock.now()), scheduler, group: &group, runner: runner)
            }
        }
        let leftovers = scheduler.finish(at: clock.now())
        reportEvents(leftovers, scheduler)
        let endedAt = clock.now()
        var summary = RunSummary()
        summary.interrupted = interrupted
        summary.duration = endedAt - startedAt
        var jobs: [RunResult.Job] = []
        jobs.reserveCapacity(plan.jobs.count)
        for (j, lifecycle) in scheduler.lifecycles.enumerated() {
            switch lifecycle.state {
            case .succeeded: summary.succeeded += 1
            case .upToDate: summary.upToDate += 1
            case .failed: summary.failed += 1
            case .skipped: summary.skipped += 1
            default: summary.cancelled += 1
            }
            summary.bytes += scheduler.results[j]?.transferred ?? 0
            jobs.append(RunResult.Job(planned: plan.jobs[j], lifecycle: lifecycle, result: scheduler.results[j]))
        }
        events.handle(.runFinished(summary))
        return RunResult(jobs: jobs, summary: summary, startedAt: startedAt, endedAt: endedAt)
    }

    /// Turns the scheduler's effects into child tasks and events.
    private func carryOut(_ effects: [RunScheduler.Effect], _ scheduler: RunScheduler,
                          group: inout TaskGroup<Event>, runner: JobRunner) {
        for effect in effects {
            switch effect {
            case .start(let j, let attempt):
                let job = plan.jobs[j]
                logger.debug("job started", metadata: ["job.id": "\(job.id)", "job.attempt": "\(attempt)"])
                let source = job.source(relativeTo: plan.directory), destination = display(job.destination)
                let board = progress, clock = clock, events = events
                group.addTask {
                    let announce = StartAnnouncement { offset in
                        events.handle(.jobStarted(id: job.id, attempt: attempt, source: source, destination: destination, resumeFrom: offset))
                    }
                    let counters = TransferProgress()
                    board.register(job.id, counters, at: clock.now())
                    let result = await runner.attempt(job, progress: counters, began: announce)
                    board.unregister(job.id)
                    if case .success(let r) = result, r.upToDate {} else { announce() }
                    return .attemptEnded(j, result)
                }
            case .retry(let j, let delay):
                wake(after: delay, with: .retryDue(j), group: &group)
            case .holdHost(let h, let wait):
                wake(after: wait, with: .hostWaitEnded(h), group: &group)
            case .event(let key):
                report(key, scheduler)
            }
        }
    }

    /// Delivers `event` to the loop after `delay` (at once when the run is interrupted:
    /// the sleep ends with the group's cancellation).
    private func wake(after delay: Duration, with event: Event, group: inout TaskGroup<Event>) {
        let clock = clock
        group.addTask {
            try? await clock.sleep(for: delay)
            return event
        }
    }

    /// Effects after the loop (no task group any more) can only be events.
    private func reportEvents(_ effects: [RunScheduler.Effect], _ scheduler: RunScheduler) {
        for case .event(let key) in effects { report(key, scheduler) }
    }

    private func report(_ key: RunEventKey, _ scheduler: RunScheduler) {
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
        case .failed(let j):
            let lc = scheduler.lifecycles[j]
            events.handle(.jobFailed(id: plan.jobs[j].id, reason: lc.reason ?? "failed", attempts: lc.attempts.count))
        case .skipped(let j):
            events.handle(.jobSkipped(id: plan.jobs[j].id, reason: scheduler.lifecycles[j].reason ?? "skipped"))
        case .cancelled(let j):
            events.handle(.jobCancelled(id: plan.jobs[j].id))
        }
    }

    /// Which host answered job `j`'s last attempt, and with what code (for host events).
    private func answer(to j: Int, _ scheduler: RunScheduler) -> (host: String, code: String) {
        (RunScheduler.hostKey(plan.jobs[j]) ?? "local", scheduler.lifecycles[j].attempts.last?.failure?.code ?? "an answer")
    }

    /// Paths relative to the manifest's folder when inside it, for shorter log lines.
    func display(_ text: String) -> String {
        text.hasPrefix("/") ? PathText.display(text, relativeTo: plan.directory) : text
    }
}
