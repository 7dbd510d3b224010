import Foundation
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

    @Test func aMissingInputIsAnErrorNotACrash() throws {
        let s = try Scratch()
        #expect(throws: ArchiveError.self) {
            try ArchiveWriter.write([.init(name: "x", sourcePath: s.path("missing"))], to: s.path("out.tar"), format: .tar, level: nil, reproducible: false)
        }
    }
}
