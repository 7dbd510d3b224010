import Crypto
import Foundation
import Synchronization
import XferCurl
import XferThreads

extension FileDigest {
    /// Files at least this large are hashed while they download, not read back after.
    static let followThreshold: Int64 = 8 << 20

    /// Hashes a file while the engine is still writing it, on a thread of its own.
    ///
    /// Reading a 1 GiB download back to hash it took longer than downloading it; hashing
    /// the body as it arrives overlaps the two on two cores, and the engine's thread does
    /// no extra work. The bytes come from the engine's own write buffers, lent once written
    /// (`WrittenChunks`); what was not lent (the first write, a resumed partial's first
    /// part, the last write if no buffer was free) is read from the file, from offset 0.
    /// Its answer is only valid if the file was appended to and never rewritten: after a
    /// restart from byte 0 (a 200 answer to a Range request) the caller must discard it
    /// and hash the file again.
    final class Follower: Sendable {
        private let fd: Int32
        /// What the transfer lends (its `TransferRequest.writtenChunks`); closed when the
        /// follower stops, which lets a transfer waiting for a buffer go on.
        private let chunks: WrittenChunks
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

        /// Starts following `path`, with the chunks the transfer lends through `chunks`,
        /// or nil if the file cannot be opened.
        init?(path: String, chunks: WrittenChunks) {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            self.chunks = chunks
            chunks.open()
            NamedThread.start("xb-follow") { [self] in follow() }
        }

        deinit { close(fd) }

        /// The writer is done: returns the digest when the follower read exactly `length`
        /// bytes, else nil (hash the file again).
        func finish(length: Int64) async -> String? {
            chunks.close()
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
            chunks.close()
        }

        /// How much lower than the run's threads the follower is scheduled (a nice value).
        /// On two cores it shares one with the server end of a loopback transfer and the
        /// kernel's receive work; at equal priority it took their turns and slowed the
        /// download itself. At +10 a 512 MiB download took 0.76 s instead of 0.85 s (median
        /// of 20 rounds of bench/big-cpu), and the hash still kept up:
        /// it gets every cycle nobody else wants. Now that the download waits for the hash
        /// when it falls behind (`WrittenChunks`), +10 still wins, by less: 1 GiB in 0.99 s
        /// against 1.02 s at 0 (medians of 10 rounds).
        static let niceness: Int32 = 10

        private func follow() {
            // Linux keeps the nice value per thread: `who` 0 is this thread only.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            var reader = Reader(fd: fd)
            defer { reader.deallocate() }
            var failed = false
            while !cancelled.load(ordering: .relaxed), let chunk = chunks.next() {
                defer { chunks.giveBack(chunk) }
                // Lower than where we are: the file was started over, and this hash is void.
                guard chunk.offset >= reader.offset, reader.read(upTo: chunk.offset) else {
                    failed = true
                    break
                }
                reader.hash(chunk.bytes)
            }
            // Lends no more, and lets a transfer waiting for a buffer go on (after a failure).
            chunks.close()
            // After the last chunk: whatever the writer wrote without lending it.
            if !failed, !cancelled.load(ordering: .relaxed), !reader.read(upTo: nil) { failed = true }
            let digest = failed || cancelled.load(ordering: .relaxed) ? nil : FileDigest.hex(reader.hasher.finalize())
            let waiter = outcome.withLock { o in
                o.finished = true
                o.digest = digest
                o.length = reader.offset
                defer { o.waiter = nil }
                return o.waiter
            }
            waiter?.resume(returning: (digest, reader.offset))
        }

        /// The follower's hash and its position in the file.
        private struct Reader {
            let fd: Int32
            var hasher = SHA256()
            var offset: Int64 = 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileDigest.blockSize, alignment: 16)

            mutating func hash(_ bytes: UnsafeRawBufferPointer) {
                hasher.update(bufferPointer: bytes)
                offset += Int64(bytes.count)
            }

            /// Hashes the file's bytes from `offset` to `end` (nil: to its end); false on a
            /// read error, or if the file ends before `end`.
            mutating func read(upTo end: Int64?) -> Bool {
                while end.map({ offset < $0 }) ?? true {
                    let wanted = end.map { min(buffer.count, Int($0 - offset)) } ?? buffer.count
                    let n = pread(fd, buffer.baseAddress, wanted, off_t(offset))
                    if n < 0, errno == EINTR { continue }
                    if n < 0 { return false }
                    if n == 0 { return end == nil }
                    hash(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                }
                return true
            }

            func deallocate() { buffer.deallocate() }
        }
    }
}
