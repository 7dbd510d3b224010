import XferCurl

/// The hosts of a run that answer nothing, and those given up on for the rest of it.
///
/// A host that is down behind a firewall (which drops the connection attempts), or a
/// server that accepts and then says nothing, costs each attempt its whole timeout. Every
/// job then spends all its attempts on it, holding one of the host's slots each time: with
/// the defaults (5 attempts, 30 s to connect, 4 at once per host), a nightly run of 2,000
/// files from a mirror that is down would take about 21 hours, past the next night's start.
/// So once `maxJobsInARow` of a host's jobs in a row have run out of attempts with every
/// one timed out unanswered (`TransferError.noAnswerInTime`), the host is given up on:
/// `RunScheduler` skips its jobs not started yet and those waiting to retry, naming the
/// host and the last failure; attempts under way go on. Any answer (a response of any
/// status, a byte of a body, a refused connection, a success) starts the count again, so
/// a host that is only slow, picky or restarting is never given up on; nor is one with
/// fewer jobs than that, which keep every attempt their retry policy gives them. Failures
/// that come fast are not counted: a server restarting refuses connections for a while,
/// and retrying those costs little. The next run tries the skipped jobs again.
struct UnansweredHosts {
    /// Jobs of one host in a row that fail without an answer from it before it is given up on.
    static let maxJobsInARow = 3

    /// Per job, whether its host answered one of its attempts.
    private var answered: [Bool]
    /// Per host, its jobs in a row that failed without one answer from it.
    private var inARow: [Int: Int] = [:]
    /// Hosts given up on, with why (`RunScheduler` says "not started: " or "not retried: "
    /// before it).
    private(set) var givenUp: [Int: String] = [:]

    init(jobs: Int) {
        answered = Array(repeating: false, count: jobs)
    }

    /// Whether a failed attempt waited out a timeout with nothing from its host (see
    /// `TransferError.noAnswerInTime`). An upload's bytes are ours: one sent whole and
    /// left without an answer (`TransferError.unanswered`) had nothing from the host either.
    static func isUnanswered(_ failure: JobFailure, moved: Int64) -> Bool {
        guard failure.httpStatus == nil else { return false }
        return failure.code == TransferError.unanswered || moved == 0 && TransferError.noAnswerInTime.contains(failure.code)
    }

    /// Records whether host `h` answered job `j`'s attempt. An interrupt, a local failure (a
    /// full disk) and a job found up to date without a request say nothing of the host.
    mutating func attemptEnded(_ j: Int, host h: Int, _ result: Result<AttemptResult, JobFailure>, moved: Int64) {
        switch result {
        case .success(let r):
            if r.upToDate && r.httpStatus == nil { return }
        case .failure(let failure):
            if failure.kind == .cancelled || failure.kind == .local || Self.isUnanswered(failure, moved: moved) { return }
        }
        answered[j] = true
        inARow[h] = nil
    }

    /// Job `j` of host `h` failed for good; true when that gives the host up (once).
    mutating func jobFailed(_ j: Int, host h: Int, _ failure: JobFailure, moved: Int64, hostName: String, jobID: String) -> Bool {
        guard givenUp[h] == nil, !answered[j], Self.isUnanswered(failure, moved: moved) else { return false }
        let count = inARow[h, default: 0] + 1
        inARow[h] = count
        guard count >= Self.maxJobsInARow else { return false }
        givenUp[h] = "\(hostName) answered none of \(count) jobs in a row (the last, \(jobID): \(failure))"
        return true
    }
}
