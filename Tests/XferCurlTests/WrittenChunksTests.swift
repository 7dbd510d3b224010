import Foundation
import Testing
import XferCurl
import XferFixtures

@Suite("Engine: written chunks lent to a reader", .timeLimit(.minutes(1)))
struct WrittenChunksTests {
    /// What a reader saw: each chunk's offset and bytes, in the order they came, and
    /// whether the transfer was seen waiting for a buffer.
    struct Seen {
        var chunks: [(offset: Int64, bytes: [UInt8])] = []
        var writerWaited = false
    }

    /// How long the reader keeps a chunk before it gives it back (or leaves).
    enum Hold: Sendable {
        case micros(UInt32)
        /// Until the transfer pauses for a buffer (awaited, at most 10 s), then this long.
        case untilTheWriterWaits(thenMicros: UInt32)
    }

    /// Reads `chunks` on a thread of its own, as the digest follower does, until they are
    /// closed. `hold(n)` says how long it keeps the n-th chunk before giving it back; it
    /// stops taking chunks after `takeAtMost` and closes them itself.
    static func read(_ chunks: WrittenChunks, takeAtMost limit: Int = .max,
                     hold: @escaping @Sendable (Int) -> Hold) async -> Seen {
        await withCheckedContinuation { continuation in
            Thread {
                var seen = Seen()
                var kept: [WrittenChunks.Chunk] = []
                while seen.chunks.count < limit, let chunk = chunks.next() {
                    seen.chunks.append((chunk.offset, Array(chunk.bytes)))
                    switch hold(seen.chunks.count) {
                    case .micros(let micros):
                        usleep(micros)
                    case .untilTheWriterWaits(let micros):
                        for _ in 0..<10_000 where !chunks.writerWaits { usleep(1_000) }
                        seen.writerWaited = seen.writerWaited || chunks.writerWaits
                        usleep(micros)
                    }
                    if limit == .max { chunks.giveBack(chunk) } else { kept.append(chunk) }
                }
                chunks.close()
                for chunk in kept { chunks.giveBack(chunk) }
                continuation.resume(returning: seen)
            }.start()
        }
    }

    /// Runs `transfer` with a reader (see `read`) on chunks opened before it starts and
    /// closed once it ends, whichever way (a failure must not leave the reader waiting);
    /// returns what the transfer returned and what the reader saw.
    static func withReader<T>(takeAtMost limit: Int = .max, hold: @escaping @Sendable (Int) -> Hold,
                              _ transfer: (WrittenChunks) async throws -> T) async throws -> (T, Seen) {
        let chunks = WrittenChunks()
        chunks.open()
        async let seen = read(chunks, takeAtMost: limit, hold: hold)
        defer { chunks.close() }
        let value = try await transfer(chunks)
        chunks.close()
        return (value, await seen)
    }

    /// Checks that `seen` holds consecutive runs of `content`, from the engine's first
    /// gathered write; returns where the last one ends.
    static func checkConsecutive(_ seen: Seen, of content: [UInt8]) -> Int {
        var end = Int(seen.chunks.first?.offset ?? 0)
        #expect(end > 0 && end <= 16_384, "only the first callback's bytes are written unlent")
        for chunk in seen.chunks {
            #expect(Int(chunk.offset) == end, "a gap: bytes written but not lent")
            #expect(chunk.bytes.elementsEqual(content[end..<min(end + chunk.bytes.count, content.count)]))
            end += chunk.bytes.count
        }
        return end
    }

    @Test func aSlowReaderIsLentEveryGatheredWriteInFileOrder() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(3_000_000)
            t.server.addFile("slow.bin", content)
            let ((result, bytes), seen) = try await Self.withReader(hold: { _ in .micros(2_000) }) { chunks in
                try await t.download("/files/slow.bin") { $0.writtenChunks = chunks }
            }
            #expect(EngineTesting.sha256(bytes) == EngineTesting.sha256(content))
            #expect(try result.get().bytesTransferred == 3_000_000)
            let end = Self.checkConsecutive(seen, of: content)
            // The last gathered write is lent only if a buffer is free when the body ends.
            #expect(end >= content.count - 256 * 1024)
        }
    }

    @Test func waitingForTheReaderIsNoStall() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(3_000_000)
            t.server.addFile("held.bin", content)
            // Longer than the stall timeout, from the moment the transfer pauses.
            let hold = { @Sendable (n: Int) -> Hold in n == 1 ? .untilTheWriterWaits(thenMicros: 1_500_000) : .micros(0) }
            let ((result, bytes), seen) = try await Self.withReader(hold: hold) { chunks in
                try await t.download("/files/held.bin") {
                    $0.writtenChunks = chunks
                    $0.options.stallTimeout = .seconds(1)
                }
            }
            #expect(throws: Never.self) { try result.get() }
            #expect(EngineTesting.sha256(bytes) == EngineTesting.sha256(content))
            #expect(seen.writerWaited)
            _ = Self.checkConsecutive(seen, of: content)
        }
    }

    @Test func aReaderThatLeavesLetsTheTransferFinishUnlent() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(4_000_000)
            t.server.addFile("left.bin", content)
            // Keeps every buffer it is lent, waits until the transfer waits for one, then leaves.
            let capacity = WrittenChunks.defaultCapacity
            let hold = { @Sendable (n: Int) -> Hold in n == capacity ? .untilTheWriterWaits(thenMicros: 0) : .micros(0) }
            let ((result, bytes), seen) = try await Self.withReader(takeAtMost: capacity, hold: hold) { chunks in
                try await t.download("/files/left.bin") { $0.writtenChunks = chunks }
            }
            #expect(throws: Never.self) { try result.get() }
            #expect(EngineTesting.sha256(bytes) == EngineTesting.sha256(content))
            #expect(seen.chunks.count == capacity)
            #expect(seen.writerWaited)
        }
    }

    /// libcurl cannot pause a `file:` transfer: asked to, it fails it.
    @Test func aFileCopyGoesOnWithoutWaitingForASlowReader() async throws {
        try await EngineTesting.with { t in
            let content = EngineTesting.bytes(3_000_000)
            let ((outcome, copied), seen) = try await Self.withReader(hold: { _ in .micros(20_000) }) { chunks in
                try await t.copy(content) { $0.writtenChunks = chunks }
            }
            #expect(outcome.bytesTransferred == 3_000_000)
            #expect(EngineTesting.sha256(copied) == EngineTesting.sha256(content))
            #expect(seen.chunks.allSatisfy { chunk in
                chunk.bytes.elementsEqual(content[Int(chunk.offset)..<(Int(chunk.offset) + chunk.bytes.count)])
            })
        }
    }

    @Test func nothingIsLentToAReaderThatNeverOpened() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("plain.bin", EngineTesting.bytes(1_000_000))
            let chunks = WrittenChunks()
            let (result, _) = try await t.download("/files/plain.bin") { $0.writtenChunks = chunks }
            #expect(throws: Never.self) { try result.get() }
            chunks.close()
            #expect(chunks.next()?.offset == nil)
        }
    }
}
