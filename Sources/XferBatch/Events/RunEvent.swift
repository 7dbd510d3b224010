/// Everything a run reports while it goes, as one enum sent to one `EventSink`.
///
/// Sinks turn these into log lines, JSON Lines (`--events`) or a live display. Paths and
/// URLs in events are already redacted; no event carries a secret.
public enum RunEvent: Sendable {
    /// `selection`: the jobs named on the command line, when the run holds only them and
    /// what they need (`Plan.selecting`).
    case runStarted(jobs: Int, name: String?, selection: Plan.Selection? = nil)
    /// `resumeFrom`: the bytes of a partial file an earlier run left that this attempt asks
    /// the server to continue (`Range`), or 0.
    case jobStarted(id: String, attempt: Int, source: String, destination: String, resumeFrom: Int64 = 0)
    case jobRetrying(id: String, attempt: Int, failure: JobFailure, delay: Duration)
    /// `host`'s answer to job `job` (`code`: `HTTP 429`, or one with `Retry-After`) asked
    /// for a pause: none of its jobs starts for `wait` (see `RunScheduler`).
    case hostHeld(host: String, job: String, code: String, wait: Duration)
    /// `host` refused job `job` a connection (`code`: `FTP 421`): it runs no more than
    /// `connections` jobs at once for the rest of the run.
    case hostLimited(host: String, job: String, code: String, connections: Int)
    /// `host` answered none of `jobs` jobs in a row, the last `job` (`code`: how its last
    /// attempt failed): its jobs not started are skipped for the rest of the run (see
    /// `UnansweredHosts`).
    case hostGivenUp(host: String, job: String, code: String, jobs: Int)
    /// `bytes`: the file's size (or what was sent); `resumedFrom`: how many of them an
    /// earlier run had fetched (see `AttemptResult.resumedFrom`); `archive`: what an
    /// archive or extract job packed or unpacked.
    case jobSucceeded(id: String, bytes: Int64, duration: Duration, destination: String, archive: ArchiveStats? = nil, resumedFrom: Int64 = 0)
    /// Already done in an earlier run (checkpoint store); nothing was transferred.
    case jobUpToDate(id: String, destination: String)
    case jobFailed(id: String, reason: String, attempts: Int)
    case jobSkipped(id: String, reason: String)
    case jobCancelled(id: String)
    case runFinished(RunSummary)
}

/// Counts and totals at the end of a run.
public struct RunSummary: Sendable, Equatable {
    public var succeeded = 0
    public var failed = 0
    public var skipped = 0
    public var cancelled = 0
    public var upToDate = 0
    /// Bytes this run wrote or sent: a resumed download counts only what it fetched, and an
    /// attempt that failed or was interrupted what it wrote or sent before it ended.
    public var bytes: Int64 = 0
    public var duration: Duration = .zero
    public var interrupted = false

    public init() {}

    public var total: Int { succeeded + failed + skipped + cancelled + upToDate }
}

/// Receives a run's events, in order, from the executor. Must not block for long.
public protocol EventSink: Sendable {
    func handle(_ event: RunEvent)
}
