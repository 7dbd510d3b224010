/// Running counts of a run's events, for the progress displays.
struct RunTally: Sendable {
    var total = 0
    var finished = 0
    var failed = 0
    var bytesDone: Int64 = 0
    /// Jobs waiting out a retry delay: neither running nor finished, and easily taken for a
    /// run that hangs when the display says "0 running".
    private(set) var waitingToRetry: Set<String> = []

    /// `id` is no longer waiting to retry. The set is empty in a run without retries:
    /// then no id is hashed, twice per job.
    private mutating func settled(_ id: String) {
        if !waitingToRetry.isEmpty { waitingToRetry.remove(id) }
    }

    mutating func count(_ event: RunEvent) {
        switch event {
        case .runStarted(let jobs, _, _):
            total = jobs
        case .jobSucceeded(let id, let bytes, _, _, _, let resumedFrom):
            finished += 1
            bytesDone += bytes - resumedFrom
            settled(id)
        case .jobFailed(let id, _, _):
            finished += 1
            failed += 1
            settled(id)
        case .jobSkipped(let id, _), .jobCancelled(let id, _), .jobUpToDate(let id, _):
            finished += 1
            settled(id)
        case .jobRetrying(let id, _, _, _):
            waitingToRetry.insert(id)
        case .jobStarted(let id, _, _, _, _):
            settled(id)
        case .hostHeld, .hostLimited, .hostGivenUp, .runFinished:
            break
        }
    }
}
