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
    /// Stopped by an interrupt. `attempts` is 0 for a job the run never started (it was
    /// waiting for a slot or a dependency), so displays can count those instead of listing
    /// each one: a Ctrl-C in a run of thousands would otherwise print thousands of lines.
    case jobCancelled(id: String, attempts: Int)
    case runFinished(RunSummary)
}

/// Counts and totals at the end of a run.
public struct RunSummary: Sendable, Equatable {
    public var succeeded = 0
    public var failed = 0
    public var skipped = 0
    /// Jobs an interrupt stopped after they had started (mid-attempt or waiting to retry).
    public var cancelled = 0
    /// Jobs an interrupt stopped before their first attempt.
    public var notStarted = 0
    public var upToDate = 0
    /// Bytes this run wrote or sent: a resumed download counts only what it fetched, and an
    /// attempt that failed or was interrupted what it wrote or sent before it ended.
    public var bytes: Int64 = 0
    public var duration: Duration = .zero
    public var interrupted = false

    public init() {}

    public var total: Int { succeeded + failed + skipped + cancelled + notStarted + upToDate }
}

/// Receives a run's events, in order, from the executor. Must not block for long.
public protocol EventSink: Sendable {
    func handle(_ event: RunEvent)
}
