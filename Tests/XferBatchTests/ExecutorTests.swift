import Foundation
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

@Suite("Executor")
struct ExecutorTests {
    typealias E = ExecutorTesting
    static let unavailable = TransferError(kind: .transient, code: "HTTP 503", message: "unavailable", httpStatus: 503)
    static let notFound = TransferError(kind: .permanent, code: "HTTP 404", message: "not found", httpStatus: 404)

    @Test func jobsRunAfterTheirDependenciesAndFilesLandInPlace() async throws {
        let t = try E()
        defer { t.cleanUp() }
        for name in ["a", "b", "c"] { t.transport.script("https://x.org/\(name)", [.body(Array(name.utf8))]) }
        let plan = try t.plan(jobs: [E.download("a", "https://x.org/a"), E.download("b", "https://x.org/b", extra: #", "dependsOn": ["a"]"#),
                                     E.download("c", "https://x.org/c", extra: #", "dependsOn": ["b"]"#)].joined(separator: ","))
        let result = await t.run(plan)
        #expect(t.startOrder == ["a", "b", "c"])
        #expect(result.summary.succeeded == 3)
        #expect(result.exitStatus == .success)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/c.bin") == Data("c".utf8))
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/c.bin.xferpart"))
        #expect(result.job("c")?.result?.sha256 == "2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6")
    }

    @Test func readyJobsStartByPriorityThenLongestChainThenManifestOrder() async throws {
        let t = try E()
        defer { t.cleanUp() }
        for name in ["plain", "chain", "tail", "urgent", "late"] { t.transport.script("https://x.org/\(name)", [.body([1])]) }
        let plan = try t.plan(jobs: [
            E.download("plain", "https://x.org/plain"),
            E.download("chain", "https://x.org/chain"),
            E.download("tail", "https://x.org/tail", extra: #", "dependsOn": ["chain"]"#),
            E.download("urgent", "https://x.org/urgent", extra: #", "priority": 5"#),
            E.download("late", "https://x.org/late"),
        ].joined(separator: ","), limits: #"{"concurrency": 1}"#)
        _ = await t.run(plan)
        // urgent (priority), chain (a dependent waits on it), then manifest order among the
        // rest: tail became ready when chain finished, and stands before late.
        #expect(t.startOrder == ["urgent", "chain", "plain", "tail", "late"])
    }

    @Test func limitsHoldAtEveryInstant() async throws {
        let t = try E(holdFor: .milliseconds(5))
        defer { t.cleanUp() }
        var jobs: [String] = []
        for i in 0..<30 {
            let url = "https://h\(i % 3).example.org/f\(i)"
            t.transport.script(url, [.body([UInt8(i)])])
            jobs.append(E.download("j\(i)", url))
        }
        let result = await t.run(try t.plan(jobs: jobs.joined(separator: ","), limits: #"{"concurrency": 4, "perHost": 2}"#))
        #expect(result.summary.succeeded == 30)
        #expect(t.transport.maxInFlight <= 4)
        #expect(t.transport.maxInFlight >= 2, "transfers to different hosts ran together")
        #expect(t.transport.maxInFlightByHost.values.allSatisfy { $0 <= 2 })
    }

    @Test func transientFailuresAreRetriedWithJitteredExponentialBackoff() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.failure(Self.unavailable), .failure(Self.unavailable), .body([7])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"),
                              defaults: #"{"retry": {"attempts": 5, "initialDelay": "1s", "maxDelay": "30s"}}"#)
        let result = await t.run(plan)
        let attempts = try #require(result.job("a")?.lifecycle.attempts)
        #expect(attempts.count == RunScheduler.maxHoldsInARow)
        // unit 0.5: half of 1s, then half of 2s.
        #expect(attempts.map(\.delayBeforeNext) == [.milliseconds(500), .seconds(1), nil])
        #expect(attempts[0].failure?.code == "HTTP 503")
        #expect(result.state("a") == .succeeded)
        #expect(attempts[1].startedAt - attempts[0].endedAt! >= .milliseconds(500), "the delay passed on the clock")
    }

    @Test func retryAfterIsHonouredUpToTheLimit() async throws {
        let t = try E()
        defer { t.cleanUp() }
        var polite = Self.unavailable
        polite.retryAfter = .seconds(7)
        var greedy = Self.unavailable
        greedy.retryAfter = .seconds(3600)
        t.transport.script("https://x.org/a", [.failure(polite), .body([1])])
        t.transport.script("https://x.org/b", [.failure(greedy), .body([1])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a") + "," + E.download("b", "https://x.org/b")))
        #expect(result.job("a")?.lifecycle.attempts.first?.delayBeforeNext == .seconds(7))
        #expect(result.state("b") == .failed)
        #expect(result.job("b")?.lifecycle.reason?.contains("more than maxRetryAfter 5m") == true)
    }

    /// A `Retry-After` (or a 429) asks the client to pause, not one URL: the host's other
    /// jobs wait it out too, while another host's go on. (They went on asking, and on a
    /// large mirror each spent its attempts on 429s.)
    @Test(arguments: [(503, Duration.seconds(7)), (429, nil)])
    func anAnswerAskingForAPauseHoldsEveryJobOfItsHost(status: Int, retryAfter: Duration?) async throws {
        let t = try E()
        defer { t.cleanUp() }
        var pause = TransferError(kind: .transient, code: "HTTP \(status)", message: "slow down", httpStatus: status)
        pause.retryAfter = retryAfter
        t.transport.script("https://x.org/a", [.failure(pause), .body([1])])
        t.transport.script("https://x.org/b", [.body([2])])
        t.transport.script("https://y.org/c", [.body([3])])
        let plan = try t.plan(jobs: [E.download("a", "https://x.org/a"), E.download("b", "https://x.org/b"), E.download("c", "https://y.org/c")]
                                .joined(separator: ","),
                              limits: #"{"concurrency": 4, "perHost": 1}"#, defaults: #"{"retry": {"initialDelay": "4s"}}"#)
        let result = await t.run(plan)
        let wait = retryAfter ?? .seconds(2)  // else a's backoff: half of 4 s (jitter unit 0.5)
        let aFailedAt = try #require(result.job("a")?.lifecycle.attempts.first?.endedAt)
        let bStartedAt = try #require(result.job("b")?.lifecycle.attempts.first?.startedAt)
        let cStartedAt = try #require(result.job("c")?.lifecycle.attempts.first?.startedAt)
        #expect(bStartedAt >= aFailedAt + wait, "b waited for x.org")
        #expect(cStartedAt < aFailedAt + wait, "y.org was not held")
        #expect(["a", "b", "c"].allSatisfy { result.state($0) == .succeeded })
        #expect(t.events.events.contains { event in
            if case .hostHeld("x.org", "a", "HTTP \(status)", wait) = event { true } else { false }
        })
    }

    /// A job that gives up on a wait past `maxRetryAfter` (a maintenance window) holds no
    /// one: its host's other jobs ask at once, as before, and fail or not on their own.
    @Test func aWaitTheJobWillNotMakeHoldsNoOne() async throws {
        let t = try E()
        defer { t.cleanUp() }
        var maintenance = Self.unavailable
        maintenance.retryAfter = .seconds(3600)
        t.transport.script("https://x.org/a", [.failure(maintenance)])
        t.transport.script("https://x.org/b", [.body([2])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a") + "," + E.download("b", "https://x.org/b"),
                              limits: #"{"concurrency": 4, "perHost": 1}"#)
        let result = await t.run(plan)
        #expect(result.state("a") == .failed)
        let aEnded = try #require(result.job("a")?.lifecycle.attempts.first?.endedAt)
        #expect(try #require(result.job("b")?.lifecycle.attempts.first?.startedAt) < aEnded + .seconds(1))
        #expect(!t.events.events.contains { if case .hostHeld = $0 { true } else { false } })
    }

    /// Holds let `perHost` jobs ask per wait: a host that refuses for good would hold every
    /// job for hours, so it is held only `maxHoldsInARow` times without a success between.
    @Test func aHostThatKeepsRefusingIsHeldOnlyAFewTimesInARow() async throws {
        let t = try E()
        defer { t.cleanUp() }
        var refusal = TransferError(kind: .transient, code: "HTTP 429", message: "quota spent", httpStatus: 429)
        refusal.retryAfter = .seconds(10)
        for i in 0..<6 { t.transport.script("https://x.org/\(i)", [.failure(refusal)]) }
        let plan = try t.plan(jobs: (0..<6).map { E.download("j\($0)", "https://x.org/\($0)") }.joined(separator: ","),
                              limits: #"{"concurrency": 4, "perHost": 1}"#, defaults: #"{"retry": {"attempts": 3}}"#)
        let result = await t.run(plan)
        #expect((0..<6).allSatisfy { result.state("j\($0)") == .failed })
        #expect(t.events.events.filter { if case .hostHeld = $0 { true } else { false } }.count == RunScheduler.maxHoldsInARow)
    }

    /// A success between pauses starts the count again: a host that recovers each time is
    /// held each time.
    @Test func aSuccessBetweenPausesStartsTheCountAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        var pause = TransferError(kind: .transient, code: "HTTP 429", message: "slow down", httpStatus: 429)
        pause.retryAfter = .seconds(2)
        for i in 0..<5 { t.transport.script("https://x.org/\(i)", [.failure(pause), .body([1])]) }
        let plan = try t.plan(jobs: (0..<5).map { E.download("j\($0)", "https://x.org/\($0)") }.joined(separator: ","),
                              limits: #"{"concurrency": 4, "perHost": 1}"#)
        let result = await t.run(plan)
        #expect((0..<5).allSatisfy { result.state("j\($0)") == .succeeded })
        #expect(t.events.events.filter { if case .hostHeld = $0 { true } else { false } }.count == 5)
    }

    /// An FTP server that takes 2 connections from an address refuses a third with 421:
    /// the host then runs 2 jobs at once, and no attempt more is spent on refusals. With
    /// the default 4 per host against vsftpd's `max_per_ip=2`, 8 of 60 jobs failed after
    /// five refused attempts.
    @Test func aHostThatRefusesOneMoreConnectionRunsNoMoreThanItTook() async throws {
        let t = try E(holdFor: .milliseconds(50))
        defer { t.cleanUp() }
        let refusal = TransferError(kind: .transient, code: TransferError.tooManyConnections, message: "the server refused the connection (421)")
        t.transport.limitConnections(toHost: "ftp.x.org", max: 2, refusal: refusal)
        for i in 0..<12 { t.transport.script("ftp://ftp.x.org/\(i)", [.body([UInt8(i)])]) }
        let plan = try t.plan(jobs: (0..<12).map { E.download("j\($0)", "ftp://ftp.x.org/\($0)") }.joined(separator: ","),
                              limits: #"{"concurrency": 8, "perHost": 4}"#, defaults: #"{"retry": {"attempts": 3, "initialDelay": "10ms"}}"#)
        let result = await t.run(plan)
        #expect((0..<12).allSatisfy { result.state("j\($0)") == .succeeded })
        #expect(t.transport.refusals == 2, "the two beyond the limit in the first round, none after")
        let limits = t.events.events.compactMap { if case .hostLimited("ftp.x.org", _, "FTP 421", let n) = $0 { n } else { nil } }
        #expect(limits == [3, 2], "one refusal ends while the other still counts as running")
    }

    @Test func attemptsRunOutAndTheJobFails() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.failure(Self.unavailable)])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a"), defaults: #"{"retry": {"attempts": 3}}"#))
        #expect(result.job("a")?.lifecycle.attempts.count == RunScheduler.maxHoldsInARow)
        #expect(result.state("a") == .failed)
        #expect(result.exitStatus == .jobsFailed)
    }

    @Test func theRunsTotalCountsWhatAnAttemptWroteBeforeItBrokeOff() async throws {
        let t = try E()
        defer { t.cleanUp() }
        // 300 bytes, then the connection drops; the retry fetches the whole (small) file again.
        t.transport.script("https://x.org/a", [.cutOff(Array(repeating: 1, count: 300), Self.unavailable), .body(Array(repeating: 2, count: 1000))])
        t.transport.script("https://x.org/b", [.cutOff(Array(repeating: 3, count: 40), Self.unavailable)])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a") + "," + E.download("b", "https://x.org/b"),
                              defaults: #"{"retry": {"attempts": 2}}"#)
        let result = await t.run(plan)
        #expect(result.state("a") == .succeeded && result.state("b") == .failed)
        #expect(result.job("a")?.result?.transferred == 1000)
        #expect(result.summary.bytes == 300 + 1000 + 40 + 40, "both of b's attempts wrote 40 bytes")
    }

    /// A host that answers none of three jobs in a row (a firewall dropping the connection
    /// attempts: each waits out its timeout) is given up on: its other jobs are skipped, not
    /// tried, with what depends on them; other hosts go on.
    @Test func aHostThatAnswersNothingIsGivenUpAndItsOtherJobsAreSkipped() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let timeout = TransferError(kind: .transient, code: "CURLE_OPERATION_TIMEDOUT", message: "Connection timed out after 30000 milliseconds")
        for i in 0..<10 { t.transport.script("https://down.example/\(i)", [.failure(timeout)]) }
        t.transport.script("https://x.org/up", [.body([1])])
        let jobs = (0..<10).map { E.download("d\($0)", "https://down.example/\($0)") }
            + [E.download("after", "https://x.org/after", extra: #", "dependsOn": ["d9"]"#), E.download("up", "https://x.org/up")]
        let plan = try t.plan(jobs: jobs.joined(separator: ","), limits: #"{"concurrency": 2, "perHost": 1}"#,
                              defaults: #"{"retry": {"attempts": 2}}"#)
        let result = await t.run(plan)
        let failed = (0..<10).filter { result.state("d\($0)") == .failed }
        #expect(failed.count == UnansweredHosts.maxJobsInARow)
        #expect(failed.allSatisfy { result.job("d\($0)")?.lifecycle.attempts.count == 2 }, "each failed job had all its attempts")
        let skipped = (0..<10).filter { result.state("d\($0)") == .skipped }
        #expect(skipped.count == 10 - UnansweredHosts.maxJobsInARow)
        // "Not retried" for a job whose first attempt came before the host was given up on.
        #expect(skipped.allSatisfy { i in
            let lifecycle = result.job("d\(i)")?.lifecycle
            let said = lifecycle?.attempts.isEmpty == true ? "not started: " : "not retried: "
            return lifecycle?.reason?.hasPrefix(said + "down.example answered none of 3 jobs in a row") == true
        })
        let asked = t.transport.requests.filter { $0.url.contains("down.example") }.count
        // Each job may make its first attempt before the first of them runs out of attempts;
        // the second attempts of the 7 skipped ones are never made.
        #expect(asked <= 10 + UnansweredHosts.maxJobsInARow, "without giving up, each of the 10 jobs makes 2 attempts: \(asked) requests")
        #expect(result.state("after") == .skipped && result.state("up") == .succeeded)
        let givenUp = t.events.events.compactMap { if case .hostGivenUp(let host, _, let code, let jobs) = $0 { "\(host) \(code) \(jobs)" } else { nil } }
        #expect(givenUp == ["down.example CURLE_OPERATION_TIMEDOUT 3"])
        #expect(result.exitStatus == .jobsFailed)
    }

    /// A job of the given-up host that is waiting to retry is skipped then, not when its
    /// delay (here 20 s: half of 40 s, the jitter drawn at 0.5) has passed, and says it was
    /// tried: "not retried", not "not started".
    @Test(.timeLimit(.minutes(1)))
    func aHostGivenUpSkipsItsJobsWaitingToRetryAtOnce() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let timeout = TransferError(kind: .transient, code: "CURLE_OPERATION_TIMEDOUT", message: "Connection timed out after 30000 milliseconds")
        for i in 0..<4 { t.transport.script("https://down.example/\(i)", [.failure(timeout)]) }
        let once = #", "retry": {"attempts": 1}"#
        let jobs = [E.download("waits", "https://down.example/3", inner: #", "retry": {"attempts": 2, "initialDelay": "40s", "maxDelay": "40s"}"#)]
            + (0..<3).map { E.download("d\($0)", "https://down.example/\($0)", inner: once) }
        let plan = try t.plan(jobs: jobs.joined(separator: ","), limits: #"{"concurrency": 1}"#)
        // On a stopped clock the run ends only if the retry's wait is cut short.
        let result = await Executor(plan: plan, transport: t.transport, clock: StoppedClock(), events: t.events, environment: [:],
                                    random: { 0.5 }).run()
        #expect((0..<3).allSatisfy { result.state("d\($0)") == .failed })
        #expect(result.state("waits") == .skipped)
        #expect(result.job("waits")?.lifecycle.reason?.hasPrefix("not retried: down.example answered none of 3 jobs in a row") == true,
                "\(result.job("waits")?.lifecycle.reason ?? "")")
        #expect(t.transport.requests.count == 4)
    }

    /// Folders the run made for a download that failed, and that hold nothing, are gone
    /// when it ends; a folder holding a finished file or a partial kept for a resume stays.
    @Test func foldersMadeForFailedDownloadsAreNotLeftEmpty() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/missing", [.failure(Self.notFound)])
        t.transport.script("https://x.org/cut", [.cutOff(Array(repeating: 7, count: 100), Self.unavailable)])
        t.transport.script("https://x.org/ok", [.body([1])])
        let once = #", "retry": {"attempts": 1}"#
        let plan = try t.plan(jobs: [E.download("missing", "https://x.org/missing", to: "deep/a/b.bin", inner: once),
                                     E.download("cut", "https://x.org/cut", to: "kept/cut.bin", inner: once),
                                     E.download("ok", "https://x.org/ok", to: "ok/c.bin")].joined(separator: ","))
        let result = await t.run(plan)
        #expect(result.state("missing") == .failed && result.state("cut") == .failed && result.state("ok") == .succeeded)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/deep"), "deep/a/ went, and deep/ with it")
        #expect(FileManager.default.fileExists(atPath: t.folder.path + "/kept/cut.bin.xferpart"), "the partial keeps its folder")
        #expect(FileManager.default.fileExists(atPath: t.folder.path + "/ok/c.bin"))
    }

    @Test func aPermanentFailureSkipsDependentsButNotIndependentWork() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.failure(Self.notFound)])
        t.transport.script("https://x.org/other", [.body([1])])
        let plan = try t.plan(jobs: [
            E.download("a", "https://x.org/a"),
            E.download("b", "https://x.org/b", extra: #", "dependsOn": ["a"]"#),
            E.download("c", "https://x.org/c", extra: #", "dependsOn": ["b"]"#),
            E.download("other", "https://x.org/other"),
        ].joined(separator: ","))
        let result = await t.run(plan)
        #expect(result.job("a")?.lifecycle.attempts.count == 1, "permanent failures are not retried")
        #expect(result.state("a") == .failed)
        #expect(result.state("b") == .skipped)
        #expect(result.job("b")?.lifecycle.reason == "dependency a failed")
        #expect(result.job("c")?.lifecycle.reason == "dependency a failed")
        #expect(result.state("other") == .succeeded)
        #expect(result.exitStatus == .jobsFailed)
    }

    @Test func anOptionalJobsFailureLetsItsDependentsRun() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.failure(Self.notFound)])
        t.transport.script("https://x.org/b", [.body([1])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a", extra: #", "optional": true"#) + ","
                                            + E.download("b", "https://x.org/b", extra: #", "dependsOn": ["a"]"#)))
        #expect(result.state("a") == .failed)
        #expect(result.state("b") == .succeeded)
    }

    @Test func failFastStopsStartingNewJobs() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.failure(Self.notFound)])
        for name in ["b", "c"] { t.transport.script("https://x.org/\(name)", [.body([1])]) }
        let plan = try t.plan(jobs: ["a", "b", "c"].map { E.download($0, "https://x.org/\($0)") }.joined(separator: ","),
                              limits: #"{"concurrency": 1}"#)
        let result = await t.run(plan, failFast: true)
        #expect(result.state("a") == .failed)
        #expect(result.state("b") == .skipped)
        #expect(result.job("c")?.lifecycle.reason == "not started: --fail-fast after a failed")
        #expect(t.transport.requests.count == 1)
    }

    /// With `--fail-fast`, a job waiting to retry is skipped at once, and so is its host's
    /// pause. Before, the run sat out the server's `Retry-After` (here 20 s; it can be
    /// minutes) only to end the job as "interrupted".
    @Test(.timeLimit(.minutes(1)))
    func failFastSkipsAJobWaitingToRetryInsteadOfSittingOutItsDelay() async throws {
        let t = try E()
        defer { t.cleanUp() }
        var busy = Self.unavailable
        busy.retryAfter = .seconds(20)
        t.transport.script("https://y.org/b", [.failure(busy), .body([1])])
        t.transport.script("https://x.org/a", [.failure(Self.notFound)])
        let plan = try t.plan(jobs: E.download("b", "https://y.org/b") + "," + E.download("a", "https://x.org/a"),
                              limits: #"{"concurrency": 1}"#)
        // On a stopped clock the run ends only if the retry's wait and the host's hold are cut short.
        let result = await Executor(plan: plan, transport: t.transport, clock: StoppedClock(), events: t.events, environment: [:],
                                    options: .init(failFast: true), random: { 0.5 }).run()
        #expect(result.state("a") == .failed)
        #expect(result.state("b") == .skipped)
        #expect(result.job("b")?.lifecycle.reason == "not retried: --fail-fast after a failed")
        #expect(t.transport.requests.count == 2)
    }

    @Test func aRunWhoseProgressCannotBeRecordedStopsStartingJobs() async throws {
        let t = try E()
        defer { t.cleanUp() }
        for name in ["a", "b", "c"] { t.transport.script("https://x.org/\(name)", [.body([1])]) }
        let plan = try t.plan(jobs: ["a", "b", "c"].map { E.download($0, "https://x.org/\($0)") }.joined(separator: ","),
                              limits: #"{"concurrency": 1}"#)
        let result = await t.run(plan, store: FullDiskStore())
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason?.hasPrefix("state: cannot record progress") == true)
        #expect(result.state("b") == .skipped)
        #expect(result.job("c")?.lifecycle.reason == "not started: the run stopped when a could not record its progress")
        #expect(t.transport.requests.count == 1)
    }

    @Test func anInterruptCancelsRunningAndWaitingJobs() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/slow", [.hang])
        t.transport.script("https://x.org/next", [.body([1])])
        let plan = try t.plan(jobs: E.download("slow", "https://x.org/slow") + ","
                              + E.download("next", "https://x.org/next", extra: #", "dependsOn": ["slow"]"#))
        let executor = t.executor(plan)
        let run = Task { await executor.run() }
        for await url in t.transport.starts where url.hasSuffix("/slow") { break }
        run.cancel()
        let result = await run.value
        #expect(result.summary.interrupted)
        #expect(result.state("slow") == .cancelled)
        #expect(result.state("next") == .cancelled)
        #expect(result.exitStatus == .interrupted)
        // What arrived would stay (see `sigintStopsTheRunWritesTheReportAndExits130`); here nothing did.
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/slow.bin.xferpart"), "no empty partial is left")
    }

    @Test func secretsReachTheTransportButNoEvent() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body([1])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "auth": {"bearer": {"tokenEnv": "TOKEN"}}, "headers": {"X-Key": {"valueEnv": "KEY"}}"#),
                              environment: ["TOKEN": "t0ps3cret", "KEY": "k3y"])
        let result = await t.run(plan, environment: ["TOKEN": "t0ps3cret", "KEY": "k3y"])
        #expect(result.state("a") == .succeeded)
        let request = try #require(t.transport.requests.first)
        guard case .bearer(let token) = request.auth else { Issue.record("no bearer auth"); return }
        #expect(token == "t0ps3cret")
        #expect(request.headers.contains { $0.name == "X-Key" && $0.value == "k3y" })
        #expect(!"\(t.events.events)".contains("t0ps3cret"))
    }

    /// A started job is announced with where it reads from: a download's URL redacted (its
    /// secret-looking query values hidden), an upload's file as given.
    @Test func aJobStartsWithItsSourceShownAndAURLsSecretsHidden() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a?token=t0ps3cret&v=2", [.body([1])])
        t.transport.script("https://x.org/put", [.body([])])
        let source = t.folder.appendingPathComponent("up.txt").path
        _ = FileManager.default.createFile(atPath: source, contents: Data("up".utf8))
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a?token=t0ps3cret&v=2") + ", "
                                  + #"{"id": "u", "upload": {"from": "\#(source)", "url": "https://x.org/put"}}"#)
        _ = await t.run(plan)
        let sources = t.events.events.compactMap { if case .jobStarted(let id, _, let source, _, _) = $0 { "\(id): \(source)" } else { nil } }
        #expect(sources.sorted() == ["a: https://x.org/a?token=REDACTED&v=2", "u: up.txt"])
    }

    /// A header read from the environment is a secret: the engine sends it to the URL's
    /// origin only (see `EasyTransfer+Redirects`); a literal one follows redirects.
    @Test func headersFromTheEnvironmentAreBoundToTheURLsOrigin() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body([1])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "headers": {"PRIVATE-TOKEN": {"valueEnv": "GL"}, "X-Trace": "1"}"#),
                              environment: ["GL": "glpat-secret"])
        _ = await t.run(plan, environment: ["GL": "glpat-secret"])
        let request = try #require(t.transport.requests.first)
        #expect(request.originBoundHeaders == ["private-token"])
        #expect(request.headers.map(\.name) == ["PRIVATE-TOKEN", "X-Trace"])
    }

    /// An FTP server refusing to change into a missing folder says only that; the job's
    /// failure adds what helps, unless the job already creates missing folders.
    @Test(arguments: [false, true])
    func anFTPUploadRefusedAtItsFolderSuggestsCreateMissingDirs(creates: Bool) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("up.txt").path
        _ = FileManager.default.createFile(atPath: source, contents: Data("up".utf8))
        t.transport.script("ftp://x.org/pub/new/up.txt", [.failure(TransferError(kind: .permanent, code: "CURLE_REMOTE_ACCESS_DENIED",
                                                                                 message: "Server denied you to change to the given directory"))])
        let plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source)", "url": "ftp://x.org/pub/new/up.txt", "createMissingDirs": \#(creates)}}"#)
        let reason = await t.run(plan).job("u")?.lifecycle.reason
        #expect(reason?.hasPrefix("CURLE_REMOTE_ACCESS_DENIED: Server denied you to change to the given directory") == true)
        #expect(reason?.hasSuffix(#"(if the folder does not exist, "createMissingDirs": true creates it)"#) == !creates, "\(reason ?? "")")
    }

    /// SFTP says "no such file" for a missing folder and "permission denied" for what it
    /// means; only the first is worth the createMissingDirs hint.
    @Test(arguments: [("CURLE_REMOTE_FILE_NOT_FOUND", true), ("CURLE_REMOTE_ACCESS_DENIED", false)])
    func anSFTPUploadSuggestsCreateMissingDirsOnlyForAMissingFolder(code: String, hinted: Bool) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("up.txt").path
        _ = FileManager.default.createFile(atPath: source, contents: Data("up".utf8))
        t.transport.script("sftp://x.org/srv/up.txt", [.failure(TransferError(kind: .permanent, code: code, message: "Upload failed"))])
        let plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source)", "url": "sftp://x.org/srv/up.txt"}}"#)
        let reason = await t.run(plan).job("u")?.lifecycle.reason
        #expect(reason?.contains("createMissingDirs") == hinted, "\(reason ?? "")")
    }

    /// An upload onto a path that is a folder: vsftpd refuses the name (553), OpenSSH's
    /// SFTP server answers libssh2's catch-all "Operation failed".
    @Test(arguments: [("ftp", "CURLE_UPLOAD_FAILED", "Failed FTP upload: 553"),
                      ("sftp", "CURLE_SSH", "Upload failed: Operation failed (4/-31)")])
    func anUploadRefusedAtItsNameSuggestsAFolderURL(scheme: String, code: String, words: String) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("up.txt").path
        _ = FileManager.default.createFile(atPath: source, contents: Data("up".utf8))
        t.transport.script("\(scheme)://x.org/srv/drop", [.failure(TransferError(kind: .permanent, code: code, message: words))])
        let plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source)", "url": "\#(scheme)://x.org/srv/drop"}}"#)
        let reason = await t.run(plan).job("u")?.lifecycle.reason ?? ""
        #expect(reason == "\(code): \(words) (if the URL names a folder, end it with / to upload into it under the file's own name)")
    }

    /// libcurl's words for an FTP server that wants TLS before the login are only
    /// `Access denied: 530`.
    @Test(arguments: [false, true])
    func anFTPLoginRefusedInClearSuggestsExplicitFTPS(explicit: Bool) async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("ftp://x.org/f", [.failure(TransferError(kind: .permanent, code: "CURLE_LOGIN_DENIED", message: "Access denied: 530"))])
        let plan = try t.plan(jobs: E.download("f", "ftp://x.org/f", inner: #", "tls": {"explicitFTPS": \#(explicit)}"#))
        let reason = await t.run(plan).job("f")?.lifecycle.reason ?? ""
        #expect(reason.hasPrefix("CURLE_LOGIN_DENIED: Access denied: 530"))
        #expect(reason.contains(#""explicitFTPS": true"#) == !explicit, "\(reason)")
        #expect(t.transport.requests.first?.options.requireFTPTLS == explicit)
    }

    /// The client certificate goes with every request of the job; its key's passphrase is
    /// read from the environment at run time; an unusable key names the settings.
    @Test func aClientCertificateGoesWithTheRequestAndAKeyProblemNamesTheSettings() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.failure(TransferError(kind: .local, code: "CURLE_SSL_CERTPROBLEM",
                                                                      message: "unable to set private key file"))])
        let tls = #", "tls": {"clientCert": "me.pem", "clientKey": "me.key", "keyPassphraseEnv": "KEYPASS"}"#
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: tls), environment: ["KEYPASS": "open sesame"])
        let reason = await t.run(plan, environment: ["KEYPASS": "open sesame"]).job("a")?.lifecycle.reason ?? ""
        let options = try #require(t.transport.requests.first?.options)
        #expect(options.clientCertificate == t.folder.path + "/me.pem")
        #expect(options.clientKey == t.folder.path + "/me.key")
        #expect(options.clientKeyPassphrase == "open sesame")
        #expect(reason.contains("tls.clientCert and tls.clientKey name PEM files"), "\(reason)")
    }

    /// The secret field goes to the server as it is, and is scrubbed from what it echoes.
    @Test func aSecretFormFieldIsSentAndScrubbedFromEchoes() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("f.txt").path
        #expect(FileManager.default.createFile(atPath: source, contents: Data("x".utf8)))
        t.transport.script("https://x.org/api", [.body(Array("ok".utf8))])
        let env = ["API_TOKEN": "supersecret123"]
        let job = #"{"id": "u", "upload": {"url": "https://x.org/api", "method": "POST", "multipart": {"fields": {"token": "${API_TOKEN}"}, "files": [{"field": "f", "path": "\#(source)"}]}}}"#
        _ = await t.run(try t.plan(jobs: job, environment: env), environment: env)
        let request = try #require(t.transport.requests.first)
        guard case .multipart(let fields, _) = request.body else { Issue.record("not a form: \(request.body)"); return }
        #expect(fields.first?.value == "supersecret123")
        #expect(request.secretTexts.contains("supersecret123"))
    }

    /// A POST whose failure came after the server may have received it is not sent again
    /// (it could be acted on twice), unless the job says the endpoint is idempotent; a POST
    /// that could not reach the server, or that it refused whole (503), is retried.
    @Test(arguments: [
        (TransferError(kind: .transient, code: "stalled", message: "no data moved for 30 s (the stall timeout)"), false, 1),
        (TransferError(kind: .transient, code: "HTTP 502", message: "bad gateway", httpStatus: 502), false, 1),
        (TransferError(kind: .transient, code: "stalled", message: "no data moved for 30 s (the stall timeout)"), true, 2),
        (TransferError(kind: .transient, code: "unanswered", message: "the whole body was sent, then no answer came for 300 s (the answer timeout)"), false, 1),
        (TransferError(kind: .transient, code: "CURLE_COULDNT_CONNECT", message: "Failed to connect to x.org port 443 after 1 ms: Couldn't connect to server"), false, 2),
        (TransferError(kind: .transient, code: "HTTP 503", message: "unavailable", httpStatus: 503), false, 2),
    ])
    func aPOSTIsSentAgainOnlyWhenTheServerCannotHaveActedOnIt(failure: TransferError, idempotent: Bool, requests: Int) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("f.txt").path
        #expect(FileManager.default.createFile(atPath: source, contents: Data("x".utf8)))
        t.transport.script("https://x.org/api", [.failure(failure), .body(Array("ok".utf8))])
        let flag = idempotent ? #", "idempotent": true"# : ""
        let job = #"{"id": "u", "upload": {"url": "https://x.org/api", "method": "POST", "from": "\#(source)"\#(flag), "retry": {"attempts": 2}}}"#
        let result = await t.run(try t.plan(jobs: job))
        #expect(t.transport.requests.count == requests)
        if requests == 1 {
            #expect(result.state("u") == .failed)
            #expect(result.job("u")?.lifecycle.reason?.hasSuffix(
                "; not retried: the server may have received this POST and could act on it twice (\"idempotent\": true retries it)") == true)
        } else {
            #expect(result.state("u") == .succeeded)
        }
    }

    @Test func idempotentIsForAPOST() throws {
        let t = try E()
        defer { t.cleanUp() }
        let error = #expect(throws: ManifestError.self) {
            try t.plan(jobs: #"{"id": "u", "upload": {"url": "https://x.org/f", "from": "f.txt", "idempotent": true}}"#)
        }
        #expect(error?.description.contains(#"jobs[0].upload.idempotent: "idempotent" is for a POST: a PUT replaces what it sent and is retried anyway"#) == true,
                "\(error.map { "\($0)" } ?? "")")
    }

    /// An upload's wait for its answer, once the body is sent, has a timeout of its own
    /// (a server may store or hash the body first); a download's wait is a stall.
    @Test func anUploadWaitsForItsAnswerByTheAnswerTimeoutADownloadHasNone() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("f.txt").path
        #expect(FileManager.default.createFile(atPath: source, contents: Data("x".utf8)))
        t.transport.script("https://x.org/put", [.body(Array("ok".utf8))])
        t.transport.script("https://x.org/get", [.body(Array("ok".utf8))])
        let jobs = #"{"id": "u", "upload": {"url": "https://x.org/put", "from": "\#(source)"}}, "# + E.download("d", "https://x.org/get")
        _ = await t.run(try t.plan(jobs: jobs, defaults: #"{"timeouts": {"stall": "20s", "answer": "7m"}}"#))
        let put = try #require(t.transport.requests.first { $0.url.hasSuffix("/put") })
        let get = try #require(t.transport.requests.first { $0.url.hasSuffix("/get") })
        #expect(put.options.answerTimeout == .seconds(420) && put.options.stallTimeout == .seconds(20))
        #expect(get.options.answerTimeout == nil && get.options.stallTimeout == .seconds(20))
    }

    @Test func anAnswerTimeoutIsForUploads() throws {
        let t = try E()
        defer { t.cleanUp() }
        let error = #expect(throws: ManifestError.self) {
            try t.plan(jobs: E.download("d", "https://x.org/get", inner: #", "timeouts": {"answer": "10m"}"#))
        }
        #expect(error?.description.contains(#"jobs[0].download.timeouts.answer: "answer" is for uploads"#) == true,
                "\(error.map { "\($0)" } ?? "")")
    }

    @Test func aCertificateThatCannotBeVerifiedNamesTheSettingsThatHelp() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.failure(TransferError(kind: .permanent, code: "CURLE_PEER_FAILED_VERIFICATION",
                                                                      message: "SSL certificate problem: self-signed certificate"))])
        let reason = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a"))).job("a")?.lifecycle.reason
        #expect(reason == "CURLE_PEER_FAILED_VERIFICATION: SSL certificate problem: self-signed certificate"
                + " (tls.caFile names the certificate of a CA to trust, such as a private one; tls.insecure skips the check)")
    }

    /// Text a server controls (an FTP reply in libcurl's message, a redirect's Location)
    /// reaches the log and the summary without escape sequences or bidi overrides.
    @Test func serverTextReachesLogsAndTheSummaryWithoutControlCharacters() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let hostile = "Access denied\u{1B}]0;pwned\u{07} \u{9B}2J\u{202E}lmth.exe"
        t.transport.script("https://x.org/a", [.failure(TransferError(kind: .permanent, code: "CURLE_LOGIN_DENIED", message: hostile))])
        let lines = Mutex("")
        let sink = PlainTextEventSink(clock: t.clock) { line in lines.withLock { $0 += line } }
        let result = await Executor(plan: try t.plan(jobs: E.download("a", "https://x.org/a")), transport: t.transport, clock: t.clock,
                                    events: sink, environment: [:], options: .init(), random: { 0.5 }).run()
        for text in [lines.withLock { $0 }, result.summaryText()] {
            #expect(!text.unicodeScalars.contains { ControlCharacters.contains($0) && $0 != "\n" }, "\(text.debugDescription)")
            #expect(text.contains("Access denied ]0;pwned   2J lmth.exe"), "\(text.debugDescription)")
        }
        #expect(FileNaming.sanitize("invoice\u{202E}fdp.exe") == "invoicefdp.exe")
    }

    @Test func aMissingSecretFailsTheJobNamingTheVariable() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "auth": {"bearer": {"tokenEnv": "TOKEN"}}"#))
        let result = await t.run(plan)
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason == "missing-secret: environment variable TOKEN is not set")
        #expect(t.transport.requests.isEmpty)
    }

    /// A secret stored from a file or with `echo` keeps its trailing newline: sent, it
    /// ended the request's headers early. The job fails naming the variable, never the value.
    @Test func aSecretWithALineBreakIsNotSentAndTheJobNamesTheVariable() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let environment = ["TOKEN": "abc\n", "KEY": "k\r\n"]
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "auth": {"bearer": {"tokenEnv": "TOKEN"}}"#) + ","
                              + E.download("b", "https://x.org/b", inner: #", "headers": {"X-Key": {"valueEnv": "KEY"}}"#),
                              environment: environment)
        #expect(plan.jobs[0].warnings.contains("environment variable TOKEN holds a line break or another control character here, which a header cannot carry"))
        #expect(plan.jobs[1].warnings.contains("environment variable KEY holds a line break or another control character here, which a header cannot carry"))
        let result = await t.run(plan, environment: environment)
        for (id, name) in [("a", "TOKEN"), ("b", "KEY")] {
            #expect(result.job(id)?.lifecycle.reason == "bad-secret: environment variable \(name) holds a line break or another control character, "
                + "which a header cannot carry (a trailing newline, from a file or `echo`?)")
        }
        #expect(t.transport.requests.isEmpty)
    }

    /// An FTP login goes as lines of text (`USER`, `PASS`): a password holding `\r\n` gave
    /// the server what follows as a command of its own. Refused over FTP, naming the
    /// variable; over HTTP, Basic credentials are base64-encoded and go as they are.
    @Test func anFTPLoginWithALineBreakIsNotSentButHTTPBasicCarriesIt() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let environment = ["U": "me", "P": "pw\r\nDELE important"]
        let basic = #", "auth": {"basic": {"userEnv": "U", "passwordEnv": "P"}}"#
        t.transport.script("https://x.org/b", [.body(Array("ok".utf8))])
        let plan = try t.plan(jobs: E.download("a", "ftp://x.org/a", inner: basic) + "," + E.download("b", "https://x.org/b", inner: basic),
                              environment: environment)
        #expect(plan.jobs[0].warnings.contains("environment variable P holds a line break or another control character here, which an FTP login cannot carry"))
        #expect(!plan.jobs[1].warnings.contains { $0.contains("line break") })
        let result = await t.run(plan, environment: environment)
        #expect(result.job("a")?.lifecycle.reason == "bad-secret: environment variable P holds a line break or another control character, "
            + "which an FTP login cannot carry (a trailing newline, from a file or `echo`?)")
        #expect(result.state("b") == .succeeded)
        #expect(t.transport.requests.map(\.url) == ["https://x.org/b"])
    }

    /// A bearer token is HTTP's: an FTP job given one logged in as `anonymous`, while
    /// `plan` warned that its credentials went unencrypted. The job's own is refused; one
    /// from `defaults`, which may serve HTTP jobs too, is warned of.
    @Test func aBearerTokenForAnFTPServerIsRefusedOrWarnedOf() throws {
        let t = try E()
        defer { t.cleanUp() }
        let bearer = #""auth": {"bearer": {"tokenEnv": "T"}}"#
        let own = ManifestTesting.problems(ManifestTesting.manifest(jobs: E.download("a", "ftp://x.org/a", inner: ", " + bearer)))
        #expect(own.contains { $0.contains("jobs[0].download.auth: a bearer token is sent over http and https only: this ftp transfer would log in without it") },
                "\(own)")
        let plan = try t.plan(jobs: E.download("a", "sftp://x.org/a") + "," + E.download("b", "https://x.org/b"), defaults: "{" + bearer + "}",
                              environment: ["T": "tok"])
        #expect(plan.jobs[0].warnings.contains("a bearer token is sent over http and https only: this sftp transfer would log in without it (auth.bearer from defaults)"))
        #expect(!plan.jobs[1].warnings.contains { $0.contains("bearer") })
        let ftp = try t.plan(jobs: E.download("a", "ftp://x.org/a"), defaults: "{" + bearer + "}", environment: ["T": "tok"])
        #expect(!ftp.jobs[0].warnings.contains("credentials are sent unencrypted over ftp"), "none are sent: \(ftp.jobs[0].warnings)")
    }

    /// A CI system passes a secret it withholds (a fork's pull request) as an empty string:
    /// that is a missing secret too, not a request with an empty token. A Basic password
    /// may be empty (an API key as the user name).
    @Test func anEmptySecretIsMissingButAnEmptyPasswordIsAllowed() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/b", [.body(Array("ok".utf8))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "auth": {"bearer": {"tokenEnv": "TOKEN"}}"#) + ","
                              + E.download("b", "https://x.org/b", inner: #", "auth": {"basic": {"userEnv": "KEY", "passwordEnv": "NONE"}}"#),
                              environment: ["TOKEN": "", "KEY": "sk_1", "NONE": ""])
        #expect(plan.jobs[0].warnings.contains("environment variable TOKEN is empty here; the run will need a value"))
        #expect(!plan.jobs[1].warnings.contains { $0.contains("NONE") })
        let result = await t.run(plan, environment: ["TOKEN": "", "KEY": "sk_1", "NONE": ""])
        #expect(result.job("a")?.lifecycle.reason == "missing-secret: environment variable TOKEN is set but empty (as CI systems pass a secret they withhold)")
        #expect(result.state("b") == .succeeded)
        #expect(t.transport.requests.map(\.url) == ["https://x.org/b"])
    }

    /// A login page sent with 200 in place of the file: the mismatch says what came.
    @Test func aChecksumMismatchSaysWhenTheFileIsAWebPage() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body(Array("<!DOCTYPE html><title>Sign in</title>".utf8))])
        let sha = String(repeating: "0", count: 64)
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "sha256": "\#(sha)""#)))
        let reason = result.job("a")?.lifecycle.reason ?? ""
        #expect(reason.contains(#"again, the manifest says \#(sha); it holds a web page titled "Sign in": the server sends another file"#), "\(reason)")
    }

    @Test func aChecksumMismatchIsRetriedAndNeverReachesTheFinalPath() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let good = Array("the real file".utf8)
        t.transport.script("https://x.org/a", [.body(Array("tampered".utf8)), .body(good)])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "sha256": "\#(FileDigest.sha256(of: good))""#),
                              defaults: #"{"retry": {"attempts": 5}}"#)
        let result = await t.run(plan)
        #expect(result.state("a") == .succeeded)
        #expect(result.job("a")?.lifecycle.attempts.count == 2)
        #expect(result.job("a")?.lifecycle.attempts.first?.failure?.code == "checksum-mismatch")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data(good))
    }

    /// A stale or mistyped `sha256` gets the same wrong digest each time: after the second,
    /// no more whole downloads are spent on it.
    @Test func theSameWrongChecksumTwiceFailsWithoutFurtherAttempts() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body(Array("updated upstream".utf8))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "sha256": "\#(String(repeating: "0", count: 64))""#),
                              defaults: #"{"retry": {"attempts": 5}}"#)
        let result = await t.run(plan)
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.attempts.count == 2)
        #expect(result.job("a")?.lifecycle.reason?.contains("again, the manifest says 0000") == true, "\(result.job("a")?.lifecycle.reason ?? "")")
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/a.bin"))
    }

    @Test func aFolderDestinationIsNamedByTheResponseAndNeverOverwritten() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/dl?id=1", [.body([1], headers: ["content-disposition": #"attachment; filename="x.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt"#])])
        t.transport.script("https://x.org/dl?id=2", [.body([2], headers: ["content-disposition": #"attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.txt"#])])
        t.transport.script("https://x.org/files/%E5%8A%9F.png", [.body([3])])
        let plan = try t.plan(jobs: [
            E.download("one", "https://x.org/dl?id=1", to: "in/"),
            E.download("two", "https://x.org/dl?id=2", to: "in/", extra: #", "dependsOn": ["one"]"#),
            E.download("pic", "https://x.org/files/%E5%8A%9F.png", to: "in/"),
        ].joined(separator: ","))
        let result = await t.run(plan)
        #expect(result.job("one")?.result?.destination == t.folder.path + "/in/résumé.txt")
        #expect(result.state("two") == .failed)
        #expect(result.job("two")?.lifecycle.reason?.contains("which job \"one\" also writes") == true)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/in/résumé.txt") == Data([1]))
        #expect(result.job("pic")?.result?.destination == t.folder.path + "/in/功.png")
    }

    /// A server may not name the file as another download's partial (`b.bin.xferpart`),
    /// which that download would cut and write into: the URL names it instead.
    @Test func aServerNamingTheFileLikeAPartialIsNotFollowed() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/dl/report.csv", [.body([1], headers: ["content-disposition": #"attachment; filename="b.bin.xferpart""#])])
        t.transport.script("https://x.org/b.bin", [.body([2])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/dl/report.csv", to: "in/") + ","
                              + E.download("b", "https://x.org/b.bin", to: "in/b.bin", extra: #", "dependsOn": ["a"]"#))
        let result = await t.run(plan)
        #expect(result.job("a")?.result?.destination == t.folder.path + "/in/report.csv")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/in/report.csv") == Data([1]))
        #expect(FileManager.default.contents(atPath: t.folder.path + "/in/b.bin") == Data([2]))
        #expect(FileNaming.sanitize("x.xferpart") == nil)
        #expect(FileNaming.name(contentDisposition: nil, finalURL: "https://x.org/x.xferpart", jobID: "j") == "j")
        let named = try t.plan(jobs: E.download("j", "https://x.org/x.xferpart", to: "in/"))
        #expect(named.jobs[0].warnings.contains("file name decided at run time: Content-Disposition, else the job id"), "\(named.jobs[0].warnings)")
    }

    /// A server's name never makes a hidden file: " .bashrc" lost its space and kept its dot.
    @Test func aServersFileNameLosesLeadingDotsBehindSpaces() {
        let names = [#"attachment; filename=" .bashrc""#, #"attachment; filename="\#t. .htaccess ""#, "attachment; filename*=UTF-8''%20..profile"]
        #expect(names.map { FileNaming.name(contentDisposition: $0, finalURL: "https://x.org/a", jobID: "j") }
                == ["bashrc", "htaccess", "profile"])
        #expect(FileNaming.sanitize(" . ") == nil)
        // A mark joins a "/" or "." into one Character; the name is cut at the scalars.
        #expect(FileNaming.sanitize("x\u{600}/.\u{301}bashrc") == "\u{301}bashrc")
        #expect(FileNaming.sanitize("a/\u{301}b") == "\u{301}b")
    }

    @Test func aFileNameOfTheFullLengthTheFileSystemAllowsIsDownloaded() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let longest = String(repeating: "a", count: 251) + ".bin"  // 255 bytes; "<name>.xferpart" would be 264
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a", to: longest)))
        #expect(result.state("a") == .succeeded, "\(result.job("a")?.lifecycle.reason ?? "")")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/" + longest) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path).filter { $0.hasSuffix(".xferpart") } == [])
    }

    @Test func aResponseFileNameTooLongForTheFileSystemIsCutKeepingItsExtension() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let encoded = String(repeating: "%E6%95%B0", count: 100) + ".csv"  // "数" x 100: 304 bytes
        t.transport.script("https://x.org/dl", [.body([7], headers: ["content-disposition": "attachment; filename*=UTF-8''" + encoded])])
        let result = await t.run(try t.plan(jobs: E.download("d", "https://x.org/dl", to: "in/")))
        let expected = t.folder.path + "/in/" + String(repeating: "数", count: 83) + ".csv"
        #expect(result.job("d")?.result?.destination == expected)
        #expect(FileManager.default.contents(atPath: expected) == Data([7]))
    }
}

@Suite("Executor: limits and reports")
struct ExecutorLimitTests {
    typealias E = ExecutorTesting

    /// The engine splits one cap over the transfers running at each moment (see
    /// `theTransfersUnderOneCapShareItAndALoneOneGetsItAll`), so every transfer of the run
    /// must name the same one.
    @Test func everyTransferOfARunSharesTheOneBandwidthCap() async throws {
        let t = try E()
        defer { t.cleanUp() }
        for i in 0..<3 { t.transport.script("https://x.org/\(i)", [.body([1])]) }
        let plan = try t.plan(jobs: (0..<3).map { E.download("j\($0)", "https://x.org/\($0)") }.joined(separator: ","),
                              limits: #"{"concurrency": 4, "bandwidth": "3MiB/s"}"#)
        _ = await t.run(plan)
        let caps = t.transport.requests.compactMap(\.options.bandwidth)
        #expect(caps.count == RunScheduler.maxHoldsInARow)
        #expect(Set(caps.map(ObjectIdentifier.init)).count == 1)
        #expect(caps.map(\.bytesPerSecond) == [3_145_728, 3_145_728, 3_145_728], "3 MiB/s")
    }

    @Test func httpsToHttpRedirectsAreFollowedOnlyWhenTheJobAllowsItAndThePlanWarns() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body([1])])
        t.transport.script("https://x.org/b", [.body([2])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a") + ","
                              + #"{"id": "b", "download": {"url": "https://x.org/b", "to": "b.bin", "tls": {"allowHttpRedirects": true}}}"#)
        #expect(!plan.jobs[0].warnings.contains { $0.contains("allowHttpRedirects") })
        #expect(plan.jobs[1].warnings.contains { $0.contains("redirects from https to plain http are followed (tls.allowHttpRedirects)") })
        _ = await t.run(plan)
        let options = Dictionary(uniqueKeysWithValues: t.transport.requests.map { ($0.url, $0.options.allowInsecureRedirects) })
        #expect(options == ["https://x.org/a": false, "https://x.org/b": true])
    }

    @Test func theSummaryListsTwentyFailuresAndCountsTheRest() async throws {
        let t = try E()
        defer { t.cleanUp() }
        var jobs: [String] = []
        for i in 0..<25 {
            t.transport.script("https://x.org/\(i)", [.failure(ExecutorTests.notFound)])
            jobs.append(E.download("j\(i)", "https://x.org/\(i)"))
        }
        let text = await t.run(try t.plan(jobs: jobs.joined(separator: ","))).summaryText()
        #expect(text.components(separatedBy: "\n").filter { $0.hasPrefix("  failed  ") }.count == 20)
        #expect(text.contains("  ... and 5 more failed (the report lists every job)\n"))
    }

    /// The summary's time has two decimals, cut as the event lines' are: "in 0.0s" and
    /// "in 3.0s" read as rounding slips beside "[  3.00s]".
    @Test(arguments: [(Duration.milliseconds(4), "in 0.00s"), (.seconds(3), "in 3.00s"), (.milliseconds(31_867), "in 31.86s")])
    func theSummarysTimeHasTwoDecimals(duration: Duration, said: String) {
        var summary = RunSummary()
        summary.succeeded = 1
        summary.duration = duration
        let text = RunResult(jobs: [], summary: summary, startedAt: .zero, endedAt: duration).summaryText()
        #expect(text == "Done: 1 succeeded of 1 jobs; 0 B \(said)\n")
    }

    @Test func junitHasOneCaseperJobWithFailuresAndSkips() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/ok", [.body([1])])
        t.transport.script("https://x.org/bad", [.failure(TransferError(kind: .permanent, code: "HTTP 404", message: "not <found>"))])
        let plan = try t.plan(jobs: [E.download("ok", "https://x.org/ok"), E.download("bad", "https://x.org/bad"),
                                     E.download("after", "https://x.org/after", extra: #", "dependsOn": ["bad"]"#)].joined(separator: ","))
        let xml = JUnitReport(result: await t.run(plan), plan: plan).xml()
        #expect(xml.contains(#"<testsuites name="xferbatch" tests="3" failures="1" skipped="1""#))
        #expect(xml.contains(#"<failure message="HTTP 404: not &lt;found&gt;" type="permanent">"#))
        #expect(xml.contains(#"<skipped message="dependency bad failed"/>"#))
    }
}

/// A state folder whose disk is full: every save fails, as SQLite's and the journal's do.
private final class FullDiskStore: CheckpointStore {
    func load(_ jobID: String) throws -> JobCheckpoint? { nil }
    func save(_ checkpoint: JobCheckpoint) throws { throw CheckpointError("cannot record progress in done.journal: No space left on device") }
    func remove(_ jobIDs: [String]) throws {}
    func all() throws -> [JobCheckpoint] { [] }
}
