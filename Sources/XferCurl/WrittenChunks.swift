import Dispatch
import Synchronization

/// Body bytes a download has just written to its file, lent without a copy to a reader on
/// another thread (the digest follower, which hashes a large download as it arrives).
///
/// Why: the follower used to read every byte back from the page cache, a second copy of
/// the whole body, on the thread that bounds a large download's time (hashing is the
/// slower half). Perf of a 1 GiB download put 21 % of that thread's time in the read.
/// The engine now hands over each gathered write (`EasyTransfer+FileWrites`, 256 KiB)
/// once it is in the file, and gathers the next bytes into an empty buffer from this pool.
///
/// With every buffer out (the reader behind), the transfer pauses until one comes back
/// (`EasyTransfer.waitsForReader`); the loop and other transfers go on. Without the
/// pause the engine wrote on unlent, and the reader read those bytes from the file: the
/// engine writes faster than SHA-256 runs here, so the pool stayed empty, the read stayed
/// in the profile, and 1 GiB took 1.25 s against 1.28 s before (bench/big-cpu); with it,
/// 0.99 s against 1.15 s. The reader reads from the file whatever lies before a chunk's
/// offset and after the last chunk (bytes written before it opened, or not lent), so it
/// sees every byte either way. Chunks come in file order; an offset lower than the
/// reader's position means the file was started over (a 200 to a Range).
///
/// Nothing is lent until the reader calls `open()`, so a download nobody follows costs
/// no buffer. Memory: at most `capacity` extra buffers per download.
public final class WrittenChunks: Sendable {
    /// Bytes of the file from `offset`, valid until given back.
    public struct Chunk: @unchecked Sendable {
        // @unchecked: the buffer belongs to whoever holds the chunk (the reader) until
        // `giveBack`; the engine never touches a lent buffer.
        public let offset: Int64
        public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[..<count]) }
        fileprivate let buffer: UnsafeMutableRawBufferPointer
        fileprivate let count: Int
    }

    /// Buffers that may be out at once (in the queue, with the reader, or free), beyond
    /// the one the engine gathers into.
    public static let defaultCapacity = 4

    private struct State: @unchecked Sendable {
        // @unchecked: raw buffers, only touched under the mutex or by their one holder.
        /// Wakes the reader; made by `open()`, and nil until then: nothing is lent to a
        /// download nobody follows (most of them: small files), and it makes no semaphore.
        /// Lending costs such a file about 850 instructions (bench/run-instructions), and
        /// cost 3,300 while every download made its semaphore and the engine its wake-up
        /// closure.
        var wake: DispatchSemaphore?
        var closed = false
        var queue: [Chunk] = []
        var free: [UnsafeMutableRawBufferPointer] = []
        var allocated = 0
        /// Called once a buffer is given back or the reader leaves (see `canLend`).
        var waker: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let capacity: Int

    public init(capacity: Int = WrittenChunks.defaultCapacity) {
        self.capacity = capacity
    }

    deinit {
        state.withLock { s in
            for buffer in s.free { buffer.deallocate() }
            for chunk in s.queue { chunk.buffer.deallocate() }
        }
    }

    /// The reader is there: from now on written chunks are lent.
    public func open() {
        state.withLock { $0.wake = $0.wake ?? DispatchSemaphore(value: 0) }
    }

    /// No more chunks will come (the transfer ended, or the reader gives up): `next()`
    /// returns what is queued, then nil.
    public func close() {
        let (wake, waker) = state.withLock { s in
            s.closed = true
            defer { s.waker = nil }
            return (s.wake, s.waker)
        }
        wake?.signal()
        waker?()
    }

    /// The next chunk in file order, waiting for one; nil once closed and empty (at once
    /// if never opened: nothing would be lent).
    public func next() -> Chunk? {
        while true {
            let (chunk, wake) = state.withLock { s in
                s.queue.isEmpty ? (nil, s.closed ? nil : s.wake) : (s.queue.removeFirst(), nil)
            }
            if let chunk { return chunk }
            guard let wake else { return nil }
            wake.wait()
        }
    }

    /// Whether the transfer is paused until a buffer comes back (the reader holds them
    /// all). For diagnostics and tests, which wait for it rather than guess a delay.
    public var writerWaits: Bool {
        state.withLock { $0.waker != nil }
    }

    /// Returns a chunk's buffer to the pool once its bytes are used.
    public func giveBack(_ chunk: Chunk) {
        let waker = state.withLock { s in
            s.free.append(chunk.buffer)
            defer { s.waker = nil }
            return s.waker
        }
        waker?()
    }

    /// Engine side: whether `lend` would take a full buffer now. If not, `waker` is called
    /// once, on the reader's thread, when a buffer is given back or the reader leaves.
    func canLend(orCall waker: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { s in
            if s.wake == nil || s.closed || !s.free.isEmpty || s.allocated < capacity { return true }
            s.waker = waker
            return false
        }
    }

    /// Engine side: lends `count` bytes of `buffer`, just written at `offset`, and returns
    /// the buffer to gather into next: an empty one from the pool, or `buffer` itself when
    /// nothing was lent (no reader, or none free).
    func lend(_ buffer: UnsafeMutableRawBufferPointer, count: Int, at offset: Int64) -> UnsafeMutableRawBufferPointer {
        let lent: (UnsafeMutableRawBufferPointer, DispatchSemaphore)? = state.withLock { s in
            guard let wake = s.wake, !s.closed else { return nil }
            let next: UnsafeMutableRawBufferPointer
            if let free = s.free.popLast() {
                next = free
            } else if s.allocated < capacity {
                s.allocated += 1
                next = .allocate(byteCount: buffer.count, alignment: 16)
            } else {
                return nil
            }
            s.queue.append(Chunk(offset: offset, buffer: buffer, count: count))
            return (next, wake)
        }
        guard let (replacement, wake) = lent else { return buffer }
        wake.signal()
        return replacement
    }
}
