import Foundation
import Synchronization
import Testing
@testable import XferBatch

/// The scheduler shared by the tasks that carry out attempts, without I/O: who carries
/// what next, what is handed over and to which lane, and when the run is over.
@Suite("Shared scheduler")
struct SharedSchedulerTests {
    typealias E = ExecutorTesting

    /// Independent downloads (or, with `dependents`, ones after job 0) under `limits`, on
    /// `lanes` lanes, and the events reported, in order.
    final class Setup: Sendable {
        let shared: SharedScheduler
        let reported = Mutex<[RunEventKey]>([])

        init(jobs: Int, limits: String, lanes: Int = 1, dependents: Set<Int> = [], failFast: Bool = false) throws {
            let t = try E()
            defer { t.cleanUp() }
            let list = (0..<jobs).map { i in
                E.download("j\(i)", "https://x.org/\(i)", extra: dependents.contains(i) ? #", "dependsOn": ["j0"]"# : "")
            }
            let plan = try t.plan(jobs: list.joined(separator: ","), limits: limits)
            shared = SharedScheduler(RunScheduler(plan: plan, failFast: failFast), lanes: lanes)
        }

        func settle(lane: Int? = 0, _ change: (inout RunScheduler, Duration) -> [RunScheduler.Effect]) -> SharedScheduler.Work? {
            shared.settle(lane: lane, at: .zero, report: { key, _ in reported.withLock { $0.append(key) } }, change)
        }

        func begin() -> SharedScheduler.Work? { settle(lane: nil) { scheduler, now in scheduler.begin(at: now) } }

        func succeeded(_ j: Int, lane: Int = 0) -> SharedScheduler.Work? {
            settle(lane: lane) { scheduler, now in
                scheduler.attemptEnded(j, .success(AttemptResult(bytes: 1, destination: "/d/\(j)", sha256: nil, httpStatus: 200)), at: now, unit: 0)
            }
        }

        /// `change` (a settle) made from a task already cancelled, as an interrupt leaves it.
        func fromACancelledTask(_ change: @escaping @Sendable () -> SharedScheduler.Work?) async -> SharedScheduler.Work? {
            await withTaskGroup(of: SharedScheduler.Work?.self) { group in
                group.cancelAll()
                group.addTask { change() }
                return await group.next() ?? nil
            }
        }

        func failed(_ j: Int, _ kind: JobFailure.Kind, lane: Int = 0) -> SharedScheduler.Work? {
            settle(lane: lane) { scheduler, now in
                scheduler.attemptEnded(j, .failure(JobFailure(kind: kind, code: "HTTP 503", message: "unavailable")), at: now, unit: 0)
            }
        }
    }

    static func attempt(_ j: Int, lane: Int = 0) -> SharedScheduler.Assignment {
        SharedScheduler.Assignment(work: .attempt(job: j, number: 1), lane: lane)
    }

    @Test func aTaskWhoseAttemptEndedCarriesOnWithTheNextJob() async throws {
        let s = try Setup(jobs: 3, limits: #"{"concurrency": 2}"#)
        #expect(s.begin() == nil, "the executor carries nothing")
        #expect(await s.shared.handedOverWork() == [Self.attempt(0), Self.attempt(1)])
        #expect(s.succeeded(0) == .attempt(job: 2, number: 1))
        #expect(s.succeeded(1) == nil)
        #expect(s.succeeded(2) == nil)
        #expect(await s.shared.handedOverWork() == [], "no task left: the run is over")
        #expect(s.reported.withLock { $0 } == [.succeeded(0), .succeeded(1), .succeeded(2)])
    }

    @Test func workBeyondWhatTheSettlingTaskCarriesWakesTheWaitingExecutor() async throws {
        let s = try Setup(jobs: 3, limits: #"{"concurrency": 3}"#, dependents: [1, 2])
        _ = s.begin()
        #expect(await s.shared.handedOverWork() == [Self.attempt(0)])
        let executor = Task { await s.shared.handedOverWork() }
        // Both dependents become startable: this task carries one, the other is handed over.
        #expect(s.succeeded(0) == .attempt(job: 1, number: 1))
        #expect(await executor.value == [Self.attempt(2)])
    }

    @Test func workHandedOverGoesToTheLaneWithTheFewestTasks() async throws {
        let s = try Setup(jobs: 4, limits: #"{"concurrency": 4}"#, lanes: 2)
        _ = s.begin()
        #expect(await s.shared.handedOverWork() == [Self.attempt(0, lane: 0), Self.attempt(1, lane: 1),
                                                   Self.attempt(2, lane: 0), Self.attempt(3, lane: 1)])
    }

    @Test func aTaskOnALaneWithTwoTasksMoreThanAnotherHandsItsNextJobOver() async throws {
        // j0 and j2 on lane 0, j1 on lane 1; j3 and j4 wait for j0.
        let s = try Setup(jobs: 5, limits: #"{"concurrency": 3}"#, lanes: 2, dependents: [3, 4])
        _ = s.begin()
        #expect(await s.shared.handedOverWork() == [Self.attempt(0, lane: 0), Self.attempt(1, lane: 1), Self.attempt(2, lane: 0)])
        #expect(s.succeeded(1, lane: 1) == nil, "nothing startable: lane 1's task ends")
        // Lane 0 runs two tasks, lane 1 none: j3 and j4 go to the executor, lane 1 first.
        #expect(s.succeeded(0, lane: 0) == nil)
        #expect(await s.shared.handedOverWork() == [Self.attempt(3, lane: 1), Self.attempt(4, lane: 0)])
    }

    @Test func aCancelledTaskInterruptsTheRunOnceAndNothingNewStarts() async throws {
        let s = try Setup(jobs: 2, limits: #"{"concurrency": 1}"#)
        _ = s.begin()
        #expect(await s.shared.handedOverWork() == [Self.attempt(0)])
        let next = await s.fromACancelledTask {
            s.settle { scheduler, now in
                scheduler.attemptEnded(0, .failure(JobFailure(kind: .cancelled, code: "cancelled", message: "cancelled")), at: now, unit: 0)
            }
        }
        #expect(next == nil)
        #expect(await s.shared.handedOverWork() == [])
        let (scheduler, interrupted) = s.shared.finish(at: .zero) { _, _ in }
        #expect(interrupted)
        #expect(scheduler.lifecycles.map(\.state) == [.cancelled, .cancelled])
        #expect(s.reported.withLock { $0 }.filter { $0 == .cancelled(1) }.count == 1, "the waiting job is cancelled once")
    }

    /// An attempt under way when `--fail-fast` stopped the run, which then fails in a way
    /// worth retrying, is not retried: it is skipped, with no delay left to wait out.
    @Test func anAttemptFailingAfterFailFastStoppedTheRunIsSkippedNotRetried() async throws {
        let s = try Setup(jobs: 3, limits: #"{"concurrency": 2}"#, failFast: true)
        _ = s.begin()
        #expect(await s.shared.handedOverWork() == [Self.attempt(0), Self.attempt(1)])
        #expect(s.failed(0, .permanent) == nil, "the run stops: j2 does not start")
        #expect(s.failed(1, .transient) == nil, "no retry delay to wait out")
        #expect(await s.shared.handedOverWork() == [], "the run is over")
        let (scheduler, interrupted) = s.shared.finish(at: .zero) { _, _ in }
        #expect(!interrupted)
        #expect(scheduler.lifecycles.map(\.state) == [.failed, .skipped, .skipped])
        #expect(scheduler.lifecycles.map(\.reason) == ["HTTP 503: unavailable", "not retried: --fail-fast after j0 failed",
                                                       "not started: --fail-fast after j0 failed"])
        #expect(s.reported.withLock { $0 } == [.failed(0), .skipped(2), .skipped(1)])
    }

    /// An attempt that fails on its own as the interrupt comes (a refused connection) is
    /// not retried: it ends cancelled, with no delay to wait out.
    @Test func anAttemptFailingAsTheInterruptComesEndsCancelledNotRetried() async throws {
        let s = try Setup(jobs: 1, limits: #"{"concurrency": 1}"#)
        _ = s.begin()
        #expect(await s.shared.handedOverWork() == [Self.attempt(0)])
        let next = await s.fromACancelledTask { s.failed(0, .transient) }
        #expect(next == nil, "no retry to wait out")
        let (scheduler, interrupted) = s.shared.finish(at: .zero) { _, _ in }
        #expect(interrupted)
        #expect(scheduler.lifecycles[0].state == .cancelled)
        #expect(scheduler.lifecycles[0].reason == "interrupted while waiting to retry")
        #expect(s.reported.withLock { $0 } == [.cancelled(0)])
    }
}
