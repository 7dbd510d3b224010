import Logging
import XferCurl

/// Runs a `Plan`: tasks that carry out attempts, around one `RunScheduler`.
///
/// The scheduler is the only place state changes (`SharedScheduler`, one lock). A task
/// whose attempt ended settles it there and carries on with the next startable attempt,
/// so a steady run keeps about `limits.concurrency` tasks busy with no hand-off per job;
/// work beyond that (several jobs ready at once, retry delays, sleeping on the
/// `ExecutionClock` and holding no slot) gets a task of its own from this executor.
/// Cancelling the task that runs `run()` is the interrupt: nothing new starts, transfers
/// are cancelled (partial files stay), and every job not finished ends `cancelled`.
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

    public func run() async -> RunResult {
        let startedAt = clock.now()
        var runner = JobRunner(transport: transport, secrets: SecretResolver(environment: environment), claims: PathClaims(),
                               outputs: RunOutputs(), outputDirectory: plan.outputDirectory,
                               bandwidthPerTransfer: Self.bandwidthPerTransfer(plan), checkpoints: options.checkpoints,
                               forceUploads: options.force)
        runner.durableInterval = options.durableInterval
        let carrier = runner
        let shared = SharedScheduler(RunScheduler(plan: plan, failFast: options.failFast))
        events.handle(.runStarted(jobs: plan.jobs.count, name: plan.name))
        await withTaskGroup(of: Void.self) { group in
            _ = shared.settle(byTask: false, at: clock.now(), report: report) { scheduler, now in scheduler.begin(at: now) }
            while case let works = await shared.handedOverWork(), !works.isEmpty {
                for work in works {
                    group.addTask { await self.carry(work, shared, carrier) }
                }
            }
        }
        let (scheduler, interrupted) = shared.finish(at: clock.now(), report: report)
        let endedAt = clock.now()
        var summary = RunSummary()
        summary.interrupted = interrupted
        summary.duration = endedAt - startedAt
        var jobs: [RunResult.Job] = []
        for (j, lifecycle) in scheduler.lifecycles.enumerated() {
            switch lifecycle.state {
            case .succeeded: summary.succeeded += 1
            case .upToDate: summary.upToDate += 1
            case .failed: summary.failed += 1
            case .skipped: summary.skipped += 1
            default: summary.cancelled += 1
            }
            if scheduler.results[j]?.upToDate != true { summary.bytes += scheduler.results[j]?.bytes ?? 0 }
            jobs.append(RunResult.Job(planned: plan.jobs[j], lifecycle: lifecycle, result: scheduler.results[j]))
        }
        events.handle(.runFinished(summary))
        return RunResult(jobs: jobs, summary: summary, startedAt: startedAt, endedAt: endedAt)
    }

    /// Carries out `first`, then whatever the scheduler gives this task next, until it
    /// gives nothing: a task per burst of work, not per job.
    private func carry(_ first: SharedScheduler.Work, _ shared: SharedScheduler, _ runner: JobRunner) async {
        var work: SharedScheduler.Work? = first
        while let current = work {
            switch current {
            case .attempt(let j, _):
                let job = plan.jobs[j]
                let counters = TransferProgress()
                progress.register(job.id, counters, at: clock.now())
                let result = await runner.attempt(job, progress: counters)
                progress.unregister(job.id)
                // Before the scheduler releases dependents: an archive reads its inputs' paths here.
                if case .success(let r) = result { runner.outputs.record(r.destination, for: job.id) }
                // Jitter is drawn only for a failure: each draw from the system generator
                // is a getrandom(2) call, one per job otherwise (2,000 in bench/run-cpu).
                let unit = if case .failure = result { random() } else { 0.0 }
                work = shared.settle(byTask: true, at: clock.now(), report: report) { scheduler, now in
                    scheduler.attemptEnded(j, result, at: now, unit: unit)
                }
            case .retry(let j, let delay):
                try? await clock.sleep(for: delay)
                work = shared.settle(byTask: true, at: clock.now(), report: report) { scheduler, now in
                    scheduler.retryDue(j, at: now)
                }
            }
        }
    }

    /// The aggregate cap split evenly over the slots transfers can use at once. Simple
    /// and never above the cap; it under-uses the cap while fewer transfers run.
    static func bandwidthPerTransfer(_ plan: Plan) -> Int64? {
        guard let total = plan.limits.bandwidth else { return nil }
        let transfers = plan.jobs.count - plan.count(.archive) - plan.count(.extract)
        return max(1, total / Int64(max(1, min(plan.limits.concurrency, transfers))))
    }
}
