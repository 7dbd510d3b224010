import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

@Suite("Hashing a download as it arrives")
struct FollowerTests {
    @Test func aDigestIsWrittenAsTheStandardLowerCaseHex() {
        // FIPS 180-2's example "abc", as `sha256sum` prints it and manifests give it.
        #expect(FileDigest.sha256(ofText: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(FileDigest.sha256(ofText: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func theFollowersDigestEqualsReadingTheFinishedFileBack() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-follow-\(UUID().uuidString)").path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        // A partial already there (a resume), then the rest written by a transport that
        // lends nothing (as the in-memory one): the follower reads it all from the file.
        let chunk = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let follower = try #require(FileDigest.Follower(path: path, chunks: WrittenChunks()))
        for _ in 0..<20 {
            _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        close(fd)
        let followed = await follower.finish(length: 21 * 300_000)
        #expect(followed == (try FileDigest.sha256(ofFileAt: path)))
    }

    /// The engine lends its gathered writes; what it wrote before (a resumed partial's
    /// first part, its first callback) and after them comes from the file.
    @Test func aResumedDownloadFollowedThroughTheEnginesChunksHasTheFilesDigest() async throws {
        let server = try await FixtureServer.start()
        let engine = try TransferEngine()
        let content = (0..<5_000_000).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) }
        server.addFile("big.bin", content)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-follow-\(UUID().uuidString)").path
        defer { unlink(path) }
        try Data(content[..<1_234_567]).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        let chunks = WrittenChunks()
        let follower = try #require(FileDigest.Follower(path: path, chunks: chunks))
        var request = TransferRequest(url: server.baseURL + "/files/big.bin", destination: .file(descriptor: fd, offset: 1_234_567))
        request.resumeFrom = 1_234_567
        request.writtenChunks = chunks
        let outcome = try await engine.perform(request, progress: TransferProgress())
        close(fd)
        await engine.shutdown()
        await server.stop()
        #expect(outcome.resumed)
        #expect(await follower.finish(length: 5_000_000) == FileDigest.sha256(of: content))
    }

    @Test func aFileHashedFromATaskHasTheDigestOfReadingItDirectlyOnWhicheverThread() async throws {
        // Below the limit the task hashes it itself; above, a thread of its own does.
        for size in [Int(FileDigest.inlineHashLimit), Int(FileDigest.inlineHashLimit) + 1] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-hash-\(UUID().uuidString)").path
            defer { unlink(path) }
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: path))
            #expect(try await FileDigest.sha256Async(ofFileAt: path) == (try FileDigest.sha256(ofFileAt: path)), "\(size) bytes")
        }
        await #expect(throws: JobFailure.self) { try await FileDigest.sha256Async(ofFileAt: "/nonexistent/xferbatch-hash") }
    }

    @Test func hashingALargeFileStopsWhenItsTaskIsCancelled() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-hash-\(UUID().uuidString)").path
        defer { unlink(path) }
        try Data(count: 4 << 20).write(to: URL(fileURLWithPath: path))
        let hashing = Task { try await FileDigest.sha256Async(ofFileAt: path) }
        hashing.cancel()
        await #expect { _ = try await hashing.value } throws: { ($0 as? JobFailure)?.kind == .cancelled }
        let cancelled = BlockingWork.Cancellation()
        cancelled.cancel()
        #expect(throws: JobFailure.self, "stops at the first block") { try FileDigest.sha256(ofFileAt: path, cancellation: cancelled) }
    }

    @Test func aBodyHashedAsItIsWrittenHasTheDigestOfItsBytes() {
        let text = String(repeating: "0123456789", count: 5_000)
        let body = Array(text.utf8)
        let inline = FileDigest.Inline()
        body.withUnsafeBytes { all in
            for start in stride(from: 0, to: all.count, by: 16_384) {
                inline.update(UnsafeRawBufferPointer(rebasing: all[start..<min(start + 16_384, all.count)]))
            }
        }
        #expect(inline.finish(length: 50_000) == FileDigest.sha256(ofText: text))
    }

    @Test func anInlineDigestOfAnotherLengthOrStoppedIsNone() {
        let short = FileDigest.Inline()
        Array("hello".utf8).withUnsafeBytes { short.update($0) }
        #expect(short.finish(length: 6) == nil, "the file holds bytes it never saw")
        let stopped = FileDigest.Inline()
        Array("hello".utf8).withUnsafeBytes { stopped.update($0) }
        stopped.stop()  // a large body: its follower hashes it
        #expect(stopped.finish(length: 5) == nil)
    }

    @Test func aLengthOtherThanTheOneReadGivesNoDigest() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-follow-\(UUID().uuidString)").path
        defer { unlink(path) }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        let follower = try #require(FileDigest.Follower(path: path, chunks: WrittenChunks()))
        #expect(await follower.finish(length: 6) == nil)
    }
}
