import Foundation
import Synchronization
import Testing
import XferCurl
import XferFixtures

@Suite("Engine: its thread as a task executor")
struct TaskExecutorTests {
    @Test func aTaskThatPrefersTheEngineRunsOnTheThreadThatRunsTheTransfers() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("here.bin", EngineTesting.bytes(2048, seed: 3))
            let callbackThread = Mutex<pthread_t?>(nil)
            let file = try t.openFile("here.bin")
            defer { close(file.fd) }
            var request = TransferRequest(url: t.url("/files/here.bin"), destination: .file(descriptor: file.fd, offset: 0))
            request.onResponse = { _, _ in callbackThread.withLock { $0 = pthread_self() }; return nil }
            let (before, after, status) = try await withTaskExecutorPreference(t.engine.taskExecutor) {
                let before = pthread_self()
                let outcome = try await t.engine.perform(request, progress: TransferProgress())
                return (before, pthread_self(), outcome.status)
            }
            #expect(status == 200)
            let loop = try #require(callbackThread.withLock { $0 }, "libcurl called back on the loop thread")
            #expect(pthread_equal(before, loop) != 0, "the task started on the loop thread")
            #expect(pthread_equal(after, loop) != 0, "and continued there once its transfer finished")
        }
    }

    /// `top -H`, `perf` and `/proc/PID/task/*/comm` show which thread spends the time.
    @Test func theEnginesThreadIsNamedForTopAndPerf() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("named.bin", EngineTesting.bytes(100, seed: 5))
            let name = Mutex<String?>(nil)
            let (result, _) = try await t.download("/files/named.bin") { request in
                request.onResponse = { _, _ in
                    let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
                    name.withLock { $0 = comm?.trimmingCharacters(in: .newlines) }
                    return nil
                }
            }
            #expect(throws: Never.self) { try result.get() }
            #expect(name.withLock { $0 } == "xb-curl")
        }
    }

    @Test func aTaskThatStillPrefersTheEngineAfterItsShutdownRunsElsewhereAndFinishes() async throws {
        let engine = try TransferEngine()
        Task { await engine.shutdown() }  // not awaited: the task below may come while the loop ends
        let total = Mutex<Int?>(nil)
        // Enqueued while the loop ends or after: either way the task must run. It is an
        // unstructured task, watched with a bounded wait, because a stranded one (the defect
        // this guards against) would never return and would hang an awaiting test.
        Task {
            let sum = await withTaskExecutorPreference(engine.taskExecutor) {
                var sum = 0
                for i in 1...100 {
                    await Task.yield()
                    sum += i
                }
                return sum
            }
            total.withLock { $0 = sum }
        }
        for _ in 0..<1_000 where total.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(total.withLock { $0 } == 5050, "the task finished within 10 s")
    }
}
