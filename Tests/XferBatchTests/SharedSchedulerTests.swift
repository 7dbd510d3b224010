import Foundation
import Synchronization
import Testing
@testable import XferBatch

/// The scheduler shared by the tasks that carry out attempts, without I/O: who carries
/// what next, what is handed over, and when the run is over.
@Suite("Shared scheduler")
struct SharedSchedulerTests {
    typealias E = ExecutorTesting

    /// Three independent downloads under `limits`, and the effects reported, in order.
    final class Setup: Sendable {
        let shared: SharedScheduler
        let reported = Mutex<[RunScheduler.Effect]>([])

        init(jobs: Int, limits: String, dependents: Bool = false) throws {
            let t = try E()
            defer { t.cleanUp() }
            let list = (0..<jobs).map { i in
                E.download("j\(i)", "https://x.org/\(i)", extra: dependents && i > 0 ? #", "dependsOn": ["j0"]"# : "")
            }
            shared = SharedScheduler(RunScheduler(plan: try t.plan(jobs: list.joined(separator: ","), limits: limits), failFast: false))
        }

        func settle(byTask: Bool = true, _ change: (inout RunScheduler, Duration) -> [RunScheduler.Effect]) -> SharedScheduler.Work? {
            shared.settle(byTask: byTask, at: .zero, report: { effect, _ in reported.withLock { $0.append(effect) } }, change)
        }

        func succeeded(_ j: Int) -> SharedScheduler.Work? {
            settle { scheduler, now in
                scheduler.attemptEnded(j, .success(AttemptResult(bytes: 1, destination: "/d/\(j)", sha256: nil, httpStatus: 200)), at: now, unit: 0)
            }
        }
    }

    @Test func aTaskWhoseAttemptEndedCarriesOnWithTheNextJob() async throws {
        let s = try Setup(jobs: 3, limits: #"{"concurrency": 2}"#)
        #expect(s.settle(byTask: false) { scheduler, now in scheduler.begin(at: now) } == nil, "the executor carries nothing")
        #expect(await s.shared.handedOverWork() == [.attempt(job: 0, number: 1), .attempt(job: 1, number: 1)])
        #expect(s.succeeded(0) == .attempt(job: 2, number: 1))
        #expect(s.succeeded(1) == nil)
        #expect(s.succeeded(2) == nil)
        #expect(await s.shared.handedOverWork() == [], "no task left: the run is over")
        #expect(s.reported.withLock { $0 } == [.start(job: 0, attempt: 1), .start(job: 1, attempt: 1), .event(.succeeded(0)),
                                              .start(job: 2, attempt: 1), .event(.succeeded(1)), .event(.succeeded(2))])
    }

    @Test func workBeyondWhatTheSettlingTaskCarriesWakesTheWaitingExecutor() async throws {
        let s = try Setup(jobs: 3, limits: #"{"concurrency": 3}"#, dependents: true)
        _ = s.settle(byTask: false) { scheduler, now in scheduler.begin(at: now) }
        #expect(await s.shared.handedOverWork() == [.attempt(job: 0, number: 1)])
        let executor = Task { await s.shared.handedOverWork() }
        // Both dependents become startable: this task carries one, the other is handed over.
        #expect(s.succeeded(0) == .attempt(job: 1, number: 1))
        #expect(await executor.value == [.attempt(job: 2, number: 1)])
    }

    @Test func aCancelledTaskInterruptsTheRunOnceAndNothingNewStarts() async throws {
        let s = try Setup(jobs: 2, limits: #"{"concurrency": 1}"#)
        _ = s.settle(byTask: false) { scheduler, now in scheduler.begin(at: now) }
        #expect(await s.shared.handedOverWork() == [.attempt(job: 0, number: 1)])
        let next = await withTaskGroup(of: SharedScheduler.Work?.self) { group in
            group.cancelAll()
            group.addTask {
                s.settle { scheduler, now in
                    scheduler.attemptEnded(0, .failure(JobFailure(kind: .cancelled, code: "cancelled", message: "cancelled")), at: now, unit: 0)
                }
            }
            return await group.next() ?? nil
        }
        #expect(next == nil)
        #expect(await s.shared.handedOverWork() == [])
        let (scheduler, interrupted) = s.shared.finish(at: .zero) { _, _ in }
        #expect(interrupted)
        #expect(scheduler.lifecycles.map(\.state) == [.cancelled, .cancelled])
        #expect(!s.reported.withLock { $0 }.contains(.start(job: 1, attempt: 1)))
    }
}
