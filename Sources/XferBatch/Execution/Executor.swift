import Logging
import XferCurl

/// Runs a `Plan`: tasks that carry out attempts on the run's lanes, around one
/// `RunScheduler`.
///
/// A lane is one `Transport` (a transfer engine: one thread, its connections) and the
/// tasks that run there. The scheduler is the only place state changes
/// (`SharedScheduler`, one lock): a task whose attempt ended settles it there and carries
/// on with the next startable attempt on its lane, so a steady run keeps about
/// `limits.concurrency` tasks busy, spread evenly over the lanes, with no hand-off per job.
/// Work beyond that (several jobs ready at once, retry delays and held hosts, waited out on
/// the `ExecutionClock` holding no slot) gets a task of its own from this executor.
/// Cancelling the task that runs `run()` is the interrupt: nothing new starts, transfers
/// are cancelled (partial files stay), and every job not finished ends `cancelled`.
public final class Executor: Sendable {
    public struct Options: Sendable {
        /// Stop starting or retrying jobs after the first failure; attempts under way finish.
        public var failFast = false
        /// Where progress is kept between runs (resume, up-to-date); nil: no state.
        public var checkpoints: (any CheckpointStore)?
        /// Send uploads again even when their source did not change (`--force`).
        public var force = false
        /// How often a resumable download's partial is flushed to the disk and its length
        /// recorded, for resuming after a reboot or power loss (nil: never).
        public var durableInterval: Duration?

        /// Measured with `bench/big-fetch` on this disk (see bench/README.md): flushing every
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
    /// One transport per lane (see `laneCount`); the first also runs the executor's own task.
    let lanes: [any Transport]
    let clock: any ExecutionClock
    let events: any EventSink
    let environment: [String: String]
    let options: Options
    let random: @Sendable () -> Double
    let logger: Logger
    /// The transfers under way, for displays that poll.
    public let progress: ProgressBoard

    /// - Parameter lanes: the transports attempts run on, one lane each (at least one; see
    ///   `laneCount` for how many a run gains from).
    public init(plan: Plan, lanes: [any Transport], clock: any ExecutionClock = ContinuousExecutionClock(),
                events: any EventSink, environment: [String: String], options: Options = Options(),
                logger: Logger = Logger(label: "xferbatch.executor"), board: ProgressBoard = ProgressBoard(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        precondition(!lanes.isEmpty, "an executor needs a transport")
        self.progress = board
        self.plan = plan
        self.lanes = lanes
        self.clock = clock
        self.events = events
        self.environment = environment
        self.options = options
        self.logger = logger
        self.random = random
    }

    /// One lane.
    public convenience init(plan: Plan, transport: any Transport, clock: any ExecutionClock = ContinuousExecutionClock(),
                            events: any EventSink, environment: [String: String], options: Options = Options(),
                            logger: Logger = Logger(label: "xferbatch.executor"), board: ProgressBoard = ProgressBoard(),
                            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.init(plan: plan, lanes: [transport], clock: clock, events: events, environment: environment, options: options,
                  logger: logger, board: board, random: random)
    }

    /// Runs every job; returns when each has ended (or the run was interrupted).
    ///
    /// Each task runs where its lane's transport prefers (`Transport.taskExecutor`: the
    /// engine's thread), so a finished transfer is followed up without a hand-off between
    /// threads; this function's own task, which only hands out work, runs on the first lane.
    public func run() async -> RunResult {
        await withTaskExecutorPreference(lanes[0].taskExecutor) { await runJobs() }
    }

    private func runJobs() async -> RunResult {
        let startedAt = clock.now()
        var runner = JobRunner(transport: lanes[0], secrets: SecretResolver(environment: environment), claims: PathClaims(plan: plan),
                               outputs: RunOutputs(plan: plan), outputDirectory: plan.outputDirectory,
                               bandwidth: plan.limits.bandwidth.map(SharedBandwidth.init), checkpoints: options.checkpoints,
                               forceUploads: options.force)
        runner.durableInterval = options.durableInterval
        runner.runFolders = plan.runFolders
        if let store = options.checkpoints {
            runner.packed = PackedSources(plan: plan, store: store)
            runner.renamed = RenamedJobs(plan: plan, store: store)
        }
        // The same runner on each lane: all but the transport is shared.
        let runners = lanes.map { lane in
            var onLane = runner
            onLane.transport = lane
            return onLane
        }
        let shared = SharedScheduler(RunScheduler(plan: plan, failFast: options.failFast), lanes: lanes.count)
        logger.debug("run started", metadata: ["run.jobs": "\(plan.jobs.count)", "run.lanes": "\(lanes.count)"])
        events.handle(.runStarted(jobs: plan.jobs.count, name: plan.name, selection: plan.selection))
        await withTaskGroup(of: Void.self) { group in
            _ = shared.settle(lane: nil, at: clock.now(), report: report) { scheduler, now in scheduler.begin(at: now) }
            while case let assignments = await shared.handedOverWork(), !assignments.isEmpty {
                for a in assignments {
                    group.addTask(executorPreference: lanes[a.lane].taskExecutor) {
                        await self.carry(a.work, lane: a.lane, shared, runners[a.lane])
                    }
                }
            }
        }
        runner.folders.removeEmptyMade()  // every task has ended: nothing writes in them any more
        let (scheduler, interrupted) = shared.finish(at: clock.now(), report: report)
        for (j, lifecycle) in scheduler.lifecycles.enumerated() where lifecycle.state == .skipped || lifecycle.state == .cancelled {
            // Ended while waiting to retry: its last attempt failed (an interrupted one did not).
            guard let failure = lifecycle.attempts.last?.failure, failure.kind != .cancelled, let why = lifecycle.reason else { continue }
            runner.recordNotRetried(plan.jobs[j], because: why)
        }
        let endedAt = clock.now()
        var summary = RunSummary()
        summary.interrupted = interrupted
        summary.duration = endedAt - startedAt
        summary.bytes = scheduler.failedAttemptBytes
        var jobs: [RunResult.Job] = []
        jobs.reserveCapacity(plan.jobs.count)
        for (j, lifecycle) in scheduler.lifecycles.enumerated() {
            switch lifecycle.state {
            case .succeeded: summary.succeeded += 1
            case .upToDate: summary.upToDate += 1
            case .failed: summary.failed += 1
            case .skipped: summary.skipped += 1
            default:
                if lifecycle.attempts.isEmpty { summary.notStarted += 1 } else { summary.cancelled += 1 }
            }
            summary.bytes += scheduler.results[j]?.transferred ?? 0
            jobs.append(RunResult.Job(planned: plan.jobs[j], lifecycle: lifecycle, result: scheduler.results[j]))
        }
        events.handle(.runFinished(summary))
        return RunResult(jobs: jobs, summary: summary, startedAt: startedAt, endedAt: endedAt)
    }

    /// Carries out `first` on `lane`, then whatever the scheduler gives this task next,
    /// until it gives nothing: a task per burst of work, not per job.
    private func carry(_ first: SharedScheduler.Work, lane: Int, _ shared: SharedScheduler, _ runner: JobRunner) async {
        var work: SharedScheduler.Work? = first
        while let current = work {
            switch current {
            case .attempt(let j, let number):
                let (result, moved) = await attempt(j, number: number, runner)
                // Before the scheduler releases dependents: an archive reads its inputs' paths here.
                if case .success(let r) = result { runner.outputs.record(r.destination, for: plan.jobs[j].id) }
                // Jitter is drawn only for a failure: each draw from the system generator
                // is a getrandom(2) call, one per job otherwise (2,000 in bench/run-cpu).
                let unit = if case .failure = result { random() } else { 0.0 }
                work = shared.settle(lane: lane, at: clock.now(), report: report) { scheduler, now in
                    scheduler.attemptEnded(j, result, at: now, unit: unit, moved: moved)
                }
            case .retry(let j, let delay):
                await shared.wait(delay, on: clock, job: j)
                work = shared.settle(lane: lane, at: clock.now(), report: report) { scheduler, now in scheduler.retryDue(j, at: now) }
            case .holdHost(let h, let wait):
                await shared.wait(wait, on: clock)
                work = shared.settle(lane: lane, at: clock.now(), report: report) { scheduler, now in scheduler.hostWaitEnded(h, at: now) }
            }
        }
    }

    /// One attempt of job `j`, announced once it is known not to be up to date; and, when it
    /// failed, the bytes it wrote or sent before that (its transfer's counters).
    private func attempt(_ j: Int, number: Int, _ runner: JobRunner) async -> (Result<AttemptResult, JobFailure>, moved: Int64) {
        let job = plan.jobs[j]
        logger.debug("job started", metadata: ["job.id": "\(job.id)", "job.attempt": "\(number)"])
        let source = job.source(relativeTo: plan.directory), destination = display(job.destination)
        let events = events
        let announce = StartAnnouncement { offset in
            events.handle(.jobStarted(id: job.id, attempt: number, source: source, destination: destination, resumeFrom: offset))
        }
        let counters = TransferProgress()
        progress.register(job.id, counters, sends: job.kind == .upload, at: clock.now())
        let result = await runner.attempt(job, progress: counters, began: announce)
        let moved = if case .failure = result { counters.bytesDone } else { Int64(0) }
        progress.unregister(job.id, failedAfter: moved)
        if case .success(let r) = result, r.upToDate {} else { announce() }
        return (result, moved)
    }
}
