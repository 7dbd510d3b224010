import Foundation
import Synchronization
import XferThreads

/// Runs blocking file work (archiving, extracting) on a thread of its own.
///
/// Job tasks run on the transfer engine's thread (`Transport.taskExecutor`): an archive
/// job doing its minutes of work there would stall every transfer, and even on the
/// cooperative pool (one thread per core, two here) it would halve the threads that drive
/// them. The work polls `isCancelled` between blocks to honour task cancellation.
enum BlockingWork {
    final class Cancellation: Sendable {
        private let flag = Atomic<Bool>(false)
        var isCancelled: Bool { flag.load(ordering: .relaxed) }
        func cancel() { flag.store(true, ordering: .relaxed) }
    }

    static func run<T: Sendable>(_ body: @escaping @Sendable (Cancellation) throws -> T) async throws -> T {
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                NamedThread.start("xb-file-work") { continuation.resume(with: Result { try body(cancellation) }) }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
