import Foundation
import Synchronization
import Testing
import XferArchive
import XferFixtures

@Suite("Archive writer")
struct ArchiveWriterTests {
    final class Scratch: @unchecked Sendable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-archive-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        deinit { try? FileManager.default.removeItem(at: folder) }

        func entries() throws -> [ArchiveWriter.Entry] {
            let big = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try Data(big).write(to: folder.appendingPathComponent("big.bin"))
            try Data("hello\n".utf8).write(to: folder.appendingPathComponent("a.txt"))
            return [ArchiveWriter.Entry(name: "bundle/a.txt", sourcePath: path("a.txt")),
                    ArchiveWriter.Entry(name: "bundle/big.bin", sourcePath: path("big.bin"))]
        }
    }

    /// `bsdtar -tvf` (Debian's libarchive-tools): a reader we did not write.
    func list(_ archive: String) throws -> String {
        let listed = ChildProcess.run("/usr/bin/bsdtar", ["-tf", archive])
        try #require(listed.status == 0, "bsdtar -tf \(archive)")
        return listed.text
    }

    @Test(arguments: ArchiveFileFormat.allCases)
    func everyFormatIsReadBackByBsdtar(format: ArchiveFileFormat) throws {
        let s = try Scratch()
        let archive = s.path("out.\(format.rawValue)")
        let result = try ArchiveWriter.write(try s.entries(), to: archive, format: format, level: nil, reproducible: false)
        #expect(result.entries == 2)
        #expect(result.bytesIn == 700_006)
        #expect(result.bytesOut > 0)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bsdtar") else {
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("bsdtar missing: install libarchive-tools") }
            return
        }
        #expect(try list(archive) == "bundle/a.txt\nbundle/big.bin\n")
    }

    /// A Swift program runs in the "C" locale (ASCII) whatever `LANG` says, and libarchive
    /// converts names through it: a tar of `résumé.txt` killed the run with SIGSEGV, and
    /// a zip read back had an entry with no name.
    @Test(arguments: ArchiveFileFormat.allCases)
    func namesOutsideASCIIArePackedUnderTheirNames(format: ArchiveFileFormat) throws {
        let s = try Scratch()
        try Data("cv\n".utf8).write(to: s.folder.appendingPathComponent("cv.txt"))
        let long = String(repeating: "dossier-é/", count: 20) + "résumé.txt"  // past ustar's 255 bytes: a pax header
        let archive = s.path("out.\(format.rawValue)")
        let result = try ArchiveWriter.write([.init(name: "résumé.txt", sourcePath: s.path("cv.txt")),
                                              .init(name: long, sourcePath: s.path("cv.txt")),
                                              .init(name: "データ/東京.txt", sourcePath: s.path("cv.txt"))],
                                             to: archive, format: format, level: nil, reproducible: false)
        #expect(result.entries == 3)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bsdtar") else {
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("bsdtar missing: install libarchive-tools") }
            return
        }
        let listed = ChildProcess.run("/usr/bin/bsdtar", ["-tf", archive], environment: ["LC_ALL": "C.UTF-8"])
        #expect(listed.status == 0)
        #expect(listed.text == "résumé.txt\n\(long)\nデータ/東京.txt\n")
    }

    @Test(arguments: ArchiveFileFormat.allCases)
    func reproducibleArchivesOfIdenticalInputsAreByteIdentical(format: ArchiveFileFormat) throws {
        let s = try Scratch()
        let entries = try s.entries()
        _ = try ArchiveWriter.write(entries, to: s.path("one"), format: format, level: nil, reproducible: true)
        // Touch the inputs: a reproducible archive ignores mtimes.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: s.path("a.txt"))
        _ = try ArchiveWriter.write(entries, to: s.path("two"), format: format, level: nil, reproducible: true)
        #expect(FileManager.default.contents(atPath: s.path("one")) == FileManager.default.contents(atPath: s.path("two")))
    }

    @Test func aFullDiskIsReportedWithItsErrno() throws {
        let s = try Scratch()
        #expect {
            try ArchiveWriter.write(try s.entries(), to: "/dev/full", format: .tarZst, level: nil, reproducible: false)
        } throws: { error in
            (error as? ArchiveError)?.code == ENOSPC && (error as? ArchiveError)?.message.contains("No space left on device") == true
        }
    }

    /// A named pipe no one writes made the job wait forever in `open`, out of reach of a
    /// cancel; a pipe, device or socket has no content of a known size to pack anyway.
    @Test(.timeLimit(.minutes(1))) func aPipeAmongTheInputsIsRefusedAtOnce() throws {
        let s = try Scratch()
        #expect(mkfifo(s.path("pipe"), 0o600) == 0)
        #expect {
            try ArchiveWriter.write([.init(name: "pipe", sourcePath: s.path("pipe"))], to: s.path("out.tar"), format: .tar, level: nil, reproducible: false)
        } throws: { error in
            (error as? ArchiveError)?.message == "\(s.path("pipe")) is not a regular file (a pipe, device or socket); only files are packed"
        }
    }

    /// Writes a 64 MiB input (sparse: nothing to read from the disk) and stops after its
    /// first block, on a thread of its own so that a write that never returns fails the test
    /// instead of hanging the suite. Returns the error, or nil when the write did not return.
    func cancelAfterTheFirstBlock(_ s: Scratch, format: ArchiveFileFormat) throws -> ArchiveError?? {
        let input = s.path("large.bin")
        #expect(FileManager.default.createFile(atPath: input, contents: nil))
        #expect(truncate(input, 64 << 20) == 0)
        let outcome = Mutex<ArchiveError??>(.none)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do throws(ArchiveError) {
                _ = try ArchiveWriter.write([.init(name: "large.bin", sourcePath: input)], to: s.path("out"), format: format,
                                            level: nil, reproducible: false, progress: { _ in false })
                outcome.withLock { $0 = .some(nil) }
            } catch {
                outcome.withLock { $0 = .some(error) }
            }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + 60) == .success else { return nil }
        return outcome.withLock { $0 }
    }

    /// libarchive pads an unfinished entry to its announced size while the archive is freed;
    /// those bytes went to a compressor that had already stopped, whose queue then waited
    /// for room forever: Ctrl-C during the packing of a large file hung the run.
    @Test(arguments: [ArchiveFileFormat.tarGz, .tarXz, .tarZst])
    func aCancelledCompressedArchiveStopsAtOnce(format: ArchiveFileFormat) throws {
        let s = try Scratch()
        let outcome = try cancelAfterTheFirstBlock(s, format: format)
        #expect(outcome == .some(.cancelled), "the write returned \(String(describing: outcome)), nil: never")
    }

    /// Nor are those zeros written to an uncompressed archive: a cancel stops at once, not
    /// after writing the rest of the file's size.
    @Test func aCancelledArchiveIsNotPaddedToTheSizeOfTheFileItWasWriting() throws {
        let s = try Scratch()
        #expect(try cancelAfterTheFirstBlock(s, format: .tar) == .some(.cancelled))
        let written = try FileManager.default.attributesOfItem(atPath: s.path("out"))[.size] as? Int
        #expect(try #require(written) <= 1 << 20)
    }

    @Test func aMissingInputIsAnErrorNotACrash() throws {
        let s = try Scratch()
        #expect(throws: ArchiveError.self) {
            try ArchiveWriter.write([.init(name: "x", sourcePath: s.path("missing"))], to: s.path("out.tar"), format: .tar, level: nil, reproducible: false)
        }
    }
}
