/// What a run did, job by job, for the summary, the report and the exit code.
public struct RunResult: Sendable {
    public struct Job: Sendable {
        public var planned: PlannedJob
        public var lifecycle: JobLifecycle
        public var result: AttemptResult?
    }

    public var jobs: [Job]
    public var summary: RunSummary
    public var startedAt: Duration
    public var endedAt: Duration

    /// 0, 1, or 130/143 when interrupted (decided by the command, which knows the signal).
    public var exitStatus: ExitStatus {
        if summary.interrupted { return .interrupted }
        return summary.failed + summary.skipped + summary.cancelled + summary.notStarted > 0 ? .jobsFailed : .success
    }
}
