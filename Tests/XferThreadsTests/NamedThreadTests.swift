import Foundation
import Synchronization
import Testing
import XferThreads

@Suite struct NamedThreadTests {
    /// The name the calling thread shows in `top -H` and perf.
    static func currentName() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    /// Starts `name` and returns what its body saw as its own name.
    static func nameSeenByBody(_ name: String) async -> String? {
        await withCheckedContinuation { continuation in
            NamedThread.start(name) { continuation.resume(returning: currentName()) }
        }
    }

    @Test func aThreadRunsItsBodyUnderItsOwnName() async {
        #expect(await Self.nameSeenByBody("xb-test") == "xb-test")
    }

    @Test func aNameLongerThanLinuxKeepsIsCutTo15BytesNotLost() async {
        #expect(await Self.nameSeenByBody("xb-a-name-far-too-long") == "xb-a-name-far-t")
    }

    /// Naming a thread from outside after `start()` wrote through a pthread handle that a
    /// finished thread had freed: a SIGSEGV in `pthread_setname_np` (CI, stop 41). Threads
    /// that end at once, started in a row, are where that happened.
    @Test func manyThreadsThatEndAtOnceStartAndFinishUnharmed() async {
        let count = 10_000
        let finished = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        NamedThread.start("xb-short-\(index % 10)") { continuation.resume(returning: true) }
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(finished == count)
    }

    @Test func theStackSizeAskedForIsTheThreadsStack() async {
        // 1 MiB is whole pages, so nothing rounds it. Left unset, the thread reports the
        // default (8 MiB here), and this fails (checked).
        let size = await withCheckedContinuation { continuation in
            NamedThread.start("xb-stack", stackSize: 1 << 20) {
                continuation.resume(returning: Thread.current.stackSize)
            }
        }
        #expect(size == 1 << 20)
    }
}
