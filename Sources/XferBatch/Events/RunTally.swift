/// Running counts of a run's events, for the progress displays.
struct RunTally: Sendable {
    var total = 0
    var finished = 0
    var failed = 0
    var bytesDone: Int64 = 0

    mutating func count(_ event: RunEvent) {
        switch event {
        case .runStarted(let jobs, _, _):
            total = jobs
        case .jobSucceeded(_, let bytes, _, _, _, let resumedFrom):
            finished += 1
            bytesDone += bytes - resumedFrom
        case .jobFailed:
            finished += 1
            failed += 1
        case .jobSkipped, .jobCancelled, .jobUpToDate:
            finished += 1
        case .jobStarted, .jobRetrying, .hostHeld, .hostLimited, .hostGivenUp, .runFinished:
            break
        }
    }
}
