import Crypto
import Foundation
import Synchronization

extension FileDigest {
    /// Files at least this large are hashed while they download, not read back after.
    static let followThreshold: Int64 = 8 << 20

    /// Hashes a file while the engine is still writing it, on a thread of its own.
    ///
    /// Reading a 1 GiB download back to hash it took longer than downloading it; following
    /// the file as it grows (the bytes are still in the page cache) overlaps the two on two
    /// cores, and the engine's thread does no extra work. The follower reads from offset 0,
    /// so a resumed partial's first part is hashed too. Its answer is only valid if the file
    /// was appended to and never rewritten: after a restart from byte 0 (a 200 answer to a
    /// Range request) the caller must discard it and hash the file again.
    final class Follower: Sendable {
        private let fd: Int32
        private let writerDone = Atomic<Bool>(false)
        private let cancelled = Atomic<Bool>(false)
        private let outcome = Mutex(Outcome())

        /// What the follower read, and who waits for it. `finish` is async so that it never
        /// blocks the thread of its caller (the transfer engine's, see `Transport.taskExecutor`)
        /// while the follower catches up.
        private struct Outcome {
            var finished = false
            var digest: String?
            var length: Int64 = 0
            var waiter: CheckedContinuation<(String?, Int64), Never>?
        }

        /// Starts following `path`, or nil if it cannot be opened.
        init?(path: String) {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            let thread = Thread { [self] in follow() }
            thread.name = "xferbatch-follow-digest"
            thread.start()
        }

        deinit { close(fd) }

        /// The writer is done: returns the digest when the follower read exactly `length`
        /// bytes, else nil (hash the file again).
        func finish(length: Int64) async -> String? {
            writerDone.store(true, ordering: .releasing)
            let (digest, read) = await withCheckedContinuation { continuation in
                let ready = outcome.withLock { o in
                    if !o.finished { o.waiter = continuation }
                    return o.finished ? (o.digest, o.length) : nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            return read == length ? digest : nil
        }

        /// Stops following (the download failed); the digest is not needed.
        func cancel() {
            cancelled.store(true, ordering: .relaxed)
            writerDone.store(true, ordering: .releasing)
        }

        /// How much lower than the run's threads the follower is scheduled (a nice value).
        /// On two cores it shares one with the server end of a loopback transfer and the
        /// kernel's receive work; at equal priority it took their turns and slowed the
        /// download itself. At +10 a 512 MiB download took 0.76 s instead of 0.85 s (median
        /// of 20 rounds of bench/big-cpu), and the hash still kept up:
        /// it gets every cycle nobody else wants.
        static let niceness: Int32 = 10

        private func follow() {
            // Linux keeps the nice value per thread: `who` 0 is this thread only.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            var hasher = SHA256()
            var offset: Int64 = 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileDigest.blockSize, alignment: 16)
            defer { buffer.deallocate() }
            var failed = false
            while !cancelled.load(ordering: .relaxed) {
                // Read the writer's flag before reading: once it is set, a read of 0 is the end.
                let done = writerDone.load(ordering: .acquiring)
                let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
                if n > 0 {
                    hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                    offset += Int64(n)
                } else if n < 0, errno != EINTR {
                    failed = true
                    break
                } else if done {
                    break
                } else {
                    usleep(500)  // caught up with the writer
                }
            }
            let digest = failed || cancelled.load(ordering: .relaxed) ? nil : FileDigest.hex(hasher.finalize())
            let waiter = outcome.withLock { o in
                o.finished = true
                o.digest = digest
                o.length = offset
                defer { o.waiter = nil }
                return o.waiter
            }
            waiter?.resume(returning: (digest, offset))
        }
    }
}
