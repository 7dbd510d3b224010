import Testing
@testable import XferBatch

@Suite("Hosts that answer nothing")
struct UnansweredHostsTests {
    static let timeout = JobFailure(kind: .transient, code: "CURLE_OPERATION_TIMEDOUT", message: "timed out")
    static let stalled = JobFailure(kind: .transient, code: "stalled", message: "no data moved for 60 s")
    static let refused = JobFailure(kind: .transient, code: "CURLE_COULDNT_CONNECT", message: "refused")
    static let unavailable = JobFailure(kind: .transient, code: "HTTP 503", message: "unavailable", httpStatus: 503)
    static let diskFull = JobFailure(kind: .local, code: "ENOSPC", message: "no space left")

    /// Each job `j` of `jobs` makes one attempt that ends with its failure; the verdict of each.
    static func fail(_ hosts: inout UnansweredHosts, _ jobs: [(Int, JobFailure, moved: Int64)]) -> [Bool] {
        jobs.map { j, failure, moved in
            hosts.attemptEnded(j, host: 0, .failure(failure), moved: moved)
            return hosts.jobFailed(j, host: 0, failure, moved: moved, hostName: "down.example", jobID: "j\(j)")
        }
    }

    @Test func aHostIsGivenUpWhenThreeJobsInARowGotNoAnswerFromIt() {
        var hosts = UnansweredHosts(jobs: 4)
        #expect(Self.fail(&hosts, [(0, Self.timeout, 0), (1, Self.stalled, 0), (2, Self.timeout, 0)]) == [false, false, true])
        #expect(hosts.givenUp[0] == "down.example answered none of 3 jobs in a row (the last, j2: CURLE_OPERATION_TIMEDOUT: timed out)")
        #expect(Self.fail(&hosts, [(3, Self.timeout, 0)]) == [false], "given up once")
        #expect(hosts.givenUp[1] == nil, "other hosts are not concerned")
    }

    /// An error status, or a refused connection (a server restarting: its jobs fail fast,
    /// and those after it may succeed), starts the count again.
    @Test(arguments: [unavailable, refused])
    func anAnswerOfAnyKindStartsTheCountAgain(answer: JobFailure) {
        var hosts = UnansweredHosts(jobs: 5)
        let verdicts = Self.fail(&hosts, [(0, Self.timeout, 0), (1, Self.timeout, 0), (2, answer, 0), (3, Self.timeout, 0), (4, Self.timeout, 0)])
        #expect(verdicts == [false, false, false, false, false])
        #expect(hosts.givenUp.isEmpty)
    }

    @Test func aJobTheHostAnsweredOnceDoesNotCount() {
        var hosts = UnansweredHosts(jobs: 3)
        hosts.attemptEnded(0, host: 0, .failure(Self.unavailable), moved: 0)  // first attempt: a 503
        #expect(Self.fail(&hosts, [(0, Self.timeout, 0), (1, Self.timeout, 0), (2, Self.timeout, 0)]) == [false, false, false])
    }

    @Test func bytesThatArrivedAreAnAnswer() {
        var hosts = UnansweredHosts(jobs: 4)
        // A stall or timeout after part of the body: the host is up, only slow.
        let verdicts = Self.fail(&hosts, [(0, Self.timeout, 0), (1, Self.timeout, 0), (2, Self.timeout, 4096), (3, Self.timeout, 0)])
        #expect(verdicts == [false, false, false, false])
    }

    /// An upload sent whole and left without an answer had nothing from the host: the
    /// bytes it moved were its own.
    @Test func uploadsSentWholeAndLeftUnansweredCount() {
        var hosts = UnansweredHosts(jobs: 3)
        let unanswered = JobFailure(kind: .transient, code: "unanswered", message: "no answer came for 300 s (the answer timeout)")
        #expect(Self.fail(&hosts, [(0, unanswered, 1 << 20), (1, unanswered, 1 << 20), (2, unanswered, 1 << 20)]) == [false, false, true])
    }

    /// A full disk or an interrupt is no news of the host: the count neither grows nor starts again.
    @Test func failuresOfOurOwnSayNothingOfTheHost() {
        var hosts = UnansweredHosts(jobs: 4)
        let cancelled = JobFailure(kind: .cancelled, code: "cancelled", message: "cancelled")
        let verdicts = Self.fail(&hosts, [(0, Self.timeout, 0), (1, Self.diskFull, 0), (2, cancelled, 0), (3, Self.timeout, 0)])
        #expect(verdicts == [false, false, false, false])
        #expect(Self.fail(&hosts, [(0, Self.timeout, 0)]) == [true], "the two unanswered jobs still count")
    }
}
