import Foundation
import Testing
@testable import XferCurl

/// How an upload's file is read (see `UploadSource`).
@Suite("Upload sources")
struct UploadSourceTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-src-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Descriptors of this process open on `path`.
    static func openCount(_ path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.count { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }
    }

    static func readAll(_ source: UploadSource) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [CChar](repeating: 0, count: 4)
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { source.read(into: $0.baseAddress!, capacity: $0.count) }
            if n <= 0 || n > 4 { return out }
            out += buffer[..<n].map { UInt8(bitPattern: $0) }
        }
    }

    /// A form of many files holds one descriptor at a time: each is opened when libcurl
    /// reads it and closed after its last byte (before, all stayed open for the request).
    @Test func aFileIsOpenOnlyWhileItIsRead() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = (0..<3).map { "\(dir)/f\($0).txt" }
        for (i, path) in paths.enumerated() { try "file \(i)\n".write(toFile: path, atomically: true, encoding: .utf8) }
        let sources = try paths.map { path throws(TransferError) in try UploadSource(path: path) }
        #expect(paths.map(Self.openCount) == [0, 0, 0], "taking the size opens nothing")
        var buffer = [CChar](repeating: 0, count: 3)
        _ = buffer.withUnsafeMutableBufferPointer { sources[0].read(into: $0.baseAddress!, capacity: $0.count) }
        #expect(paths.map(Self.openCount) == [1, 0, 0], "open while read")
        #expect(String(decoding: Self.readAll(sources[0]), as: UTF8.self) == "e 0\n")
        #expect(paths.map(Self.openCount) == [0, 0, 0], "closed after its last byte")
        #expect(sources[0].seek(to: 0, from: SEEK_SET), "a rewind (a 307) reads it again")
        #expect(String(decoding: Self.readAll(sources[0]), as: UTF8.self) == "file 0\n")
    }

    /// A form part names the file by its path's last component, cut at the "/" byte:
    /// U+0600 joins the "/" after it into one Character, which a split by characters kept.
    @Test func aFormPartIsNamedByThePathsLastComponentAtTheSlashByte() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/x\u{600}", withIntermediateDirectories: true)
        try "a\n".write(toFile: dir + "/x\u{600}/y.txt", atomically: true, encoding: .utf8)
        #expect(try UploadSource(path: dir + "/x\u{600}/y.txt").fileName == "y.txt")
    }

    /// A file replaced between taking its size and reading it is another file: the
    /// attempt fails as changed, and the retry sends the new one.
    @Test func aFileReplacedBeforeItIsReadFailsAsChanged() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/f.txt"
        try "first\n".write(toFile: path, atomically: true, encoding: .utf8)
        let source = try UploadSource(path: path)
        try "other\n".write(toFile: path, atomically: true, encoding: .utf8)  // a new inode renamed over it
        _ = Self.readAll(source)
        #expect(source.failure?.code == TransferError.sourceChanged)
        #expect(source.failure?.message.contains("was replaced by another file") == true)
    }

    /// Opened on the engine's thread: a named pipe put in the file's place was waited on
    /// there, stopping every transfer. Opened without waiting, it is just another file.
    @Test(.timeLimit(.minutes(1))) func aFileReplacedByANamedPipeFailsAsChangedWithoutWaiting() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/f.txt"
        try "first\n".write(toFile: path, atomically: true, encoding: .utf8)
        let source = try UploadSource(path: path)
        #expect(mkfifo(dir + "/pipe", 0o600) == 0)
        #expect(rename(dir + "/pipe", path) == 0)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let reader = source  // read on that thread only, until `done`
        Thread {
            _ = Self.readAll(reader)
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 30) == .success, "the read returned")
        #expect(source.failure?.code == TransferError.sourceChanged)
    }
}
