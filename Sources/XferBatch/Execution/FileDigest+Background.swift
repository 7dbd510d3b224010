import Crypto
import Foundation
import XferThreads

extension FileDigest {
    /// A SHA-256 of bytes handed over as they go by, computed on a thread of its own.
    ///
    /// An archive is hashed while it is written instead of being read back, and off the
    /// writing thread: hashing was a tenth of an archive job's time (`perf` on
    /// `bench/archive-pack`), which now overlaps compression on the second core. At most
    /// `maxQueued` chunks (copies of libarchive's output blocks, about 128 KiB each) wait,
    /// so memory stays bounded whatever the archive's size.
    final class Background: @unchecked Sendable {
        static let maxQueued = 8
        // All state below is guarded by `condition`.
        private let condition = NSCondition()
        private var queue: [[UInt8]] = []
        private var finished = false
        private var digest: String?

        init() {
            NamedThread.start("xb-digest") { [self] in hashUntilFinished() }
        }

        /// Hands over a copy of `bytes`; waits while `maxQueued` chunks are pending.
        func update(_ bytes: UnsafeRawBufferPointer) {
            let chunk = Array(bytes)
            condition.lock()
            while queue.count >= Self.maxQueued { condition.wait() }
            queue.append(chunk)
            condition.broadcast()
            condition.unlock()
        }

        /// Waits for the pending chunks and returns the hex digest. Call it exactly once
        /// the bytes are all handed over (also after a failure: it ends the thread).
        func finalize() -> String {
            condition.lock()
            defer { condition.unlock() }
            finished = true
            condition.broadcast()
            while true {
                if let digest { return digest }
                condition.wait()
            }
        }

        private func hashUntilFinished() {
            var hasher = SHA256()
            while true {
                condition.lock()
                while queue.isEmpty && !finished { condition.wait() }
                if queue.isEmpty {
                    digest = FileDigest.hex(hasher.finalize())
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                let chunk = queue.removeFirst()
                condition.broadcast()
                condition.unlock()
                hasher.update(data: chunk)
            }
        }
    }
}
