import Foundation
import Testing
import XferArchive
import XferFixtures

@Suite("Archive extraction")
struct ArchiveExtractorTests {
    @Test func aWellFormedTarballKeepsFoldersModesTimesAndLinks() throws {
        let s = try ExtractionScratch()
        let result = try s.extract(ExtractionScratch.fixture("good.tar.gz"))
        #expect([result.entries, result.files, result.folders, result.links] as [Int] == [8, 3, 3, 2])
        #expect(result.bytesOut == 18 + 8 + 7)
        let archiveSize = try FileManager.default.attributesOfItem(atPath: ExtractionScratch.fixture("good.tar.gz"))[.size] as? NSNumber
        #expect(result.bytesIn == archiveSize?.int64Value)
        #expect(s.contents("top/bin/tool") == "#!/bin/sh\necho hi\n")
        #expect(s.contents("top/locked/inside.txt") == "inside\n")
        let fm = FileManager.default
        let tool = try fm.attributesOfItem(atPath: s.target + "/top/bin/tool")
        #expect((tool[.posixPermissions] as? NSNumber)?.intValue == 0o755)
        #expect((tool[.modificationDate] as? Date)?.timeIntervalSince1970 == 1_700_000_000)
        #expect(try fm.destinationOfSymbolicLink(atPath: s.target + "/top/docs") == "README")
        let again = try fm.attributesOfItem(atPath: s.target + "/top/bin/tool-again")
        #expect((again[.systemFileNumber] as? NSNumber) == (tool[.systemFileNumber] as? NSNumber))
        // A read-only folder in the archive stays removable: the owner keeps write access.
        let locked = try fm.attributesOfItem(atPath: s.target + "/top/locked")
        #expect((locked[.posixPermissions] as? NSNumber)?.intValue == 0o755)
        #expect(!fm.fileExists(atPath: s.staging))
    }

    @Test(arguments: [
        ("zip-slip.zip", "../evil.txt"),
        ("zip-slip.tar", "a/../../evil.txt"),
        // libarchive reads Windows separators in a zip as "/", which the rules then see.
        ("backslash-slip.zip", "../../evil.txt"),
        ("absolute.tar", "/tmp/xferbatch-evil.txt"),
        ("symlink-escape.tar", "link"),
        ("symlink-absolute.tar", "passwd"),
        ("through-link.tar", "alias/x.txt"),
        ("symlink-chain.tar", "b"),
        ("symlink-grapheme.tar", "l"),
        ("hardlink-escape.tar", "h"),
        ("device.tar", "dev/null"),
    ])
    func aHostileArchiveIsRefusedNamingTheEntryAndLeavesNothing(fixture: String, entry: String) throws {
        let s = try ExtractionScratch()
        do {
            _ = try s.extract(ExtractionScratch.fixture(fixture))
            Issue.record("\(fixture) was extracted")
        } catch {
            guard case .unsafeEntry(let named, _) = error else {
                Issue.record("\(fixture): \(error)")
                return
            }
            #expect(named == entry)
            #expect(error.description.contains("refused entry \"\(entry)\""))
        }
        #expect(s.allPaths() == ["one", "one/two", "one/two/three"])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/xferbatch-evil.txt"))
    }

    @Test func aBombIsStoppedAtMaxBytesCountedAsWritten() throws {
        let s = try ExtractionScratch()
        #expect {
            _ = try s.extract(ExtractionScratch.fixture("bomb.zip"), options: .init(maxBytes: 1 << 20))
        } throws: { error in
            guard case ExtractionError.tooManyBytes(let limit, let entry) = error else { return false }
            return limit == 1 << 20 && entry == "zeros.bin"
        }
        #expect(s.allPaths() == ["one", "one/two", "one/two/three"])
    }

    /// A sparse file (GNU tar `--sparse`: a disk image, a cloud image's `disk.raw`) keeps
    /// its holes, as `tar -x` keeps them, and they count for nothing against `maxBytes`: a
    /// 16 MiB image holding 12 KiB of data fits under 1 MiB. Its holes were written out as
    /// zeros (a 10 GiB image with 1 GiB of data took 10 GiB of disk), and its declared size
    /// alone went over `maxBytes`.
    @Test(arguments: ["sparse-gnu.tar.gz", "sparse-pax.tar.gz"])
    func aSparseFileKeepsItsHolesWhichDoNotCountAsWritten(fixture: String) throws {
        let s = try ExtractionScratch()
        let result = try s.extract(ExtractionScratch.fixture(fixture), options: .init(maxBytes: 1 << 20))
        #expect(result.bytesOut == 3 * 4096)
        let image = try #require(FileManager.default.contents(atPath: s.target + "/disk.img"))
        #expect(image.count == 16 << 20)
        var expected = [UInt8](repeating: 0, count: 16 << 20)
        for (offset, byte) in [(0, UInt8(ascii: "A")), (5 << 20, UInt8(ascii: "B")), ((16 << 20) - 4096, UInt8(ascii: "C"))] {
            expected.replaceSubrange(offset..<offset + 4096, with: repeatElement(byte, count: 4096))
        }
        #expect(image == Data(expected))
        var info = stat()
        #expect(stat(s.target + "/disk.img", &info) == 0)
        #expect(Int(info.st_blocks) * 512 < 1 << 20, "allocated: \(Int(info.st_blocks) * 512) bytes")
    }

    /// A sparse file ending in a hole has no data block after it: it came out cut at its
    /// last block (a 6 GiB disk image 5,987,368,960 bytes long).
    @Test func aSparseFileEndingInAHoleKeepsItsLength() throws {
        let s = try ExtractionScratch()
        let result = try s.extract(ExtractionScratch.fixture("sparse-tail.tar.gz"))
        #expect(result.bytesOut == 4096)
        var expected = [UInt8](repeating: 0, count: 8 << 20)
        expected.replaceSubrange((1 << 20)..<(1 << 20) + 4096, with: repeatElement(UInt8(ascii: "D"), count: 4096))
        #expect(FileManager.default.contents(atPath: s.target + "/tail.img") == Data(expected))
    }

    /// An encrypted entry is named as such. It failed as "cannot read data: Passphrase
    /// required for this entry", followed by advice for a damaged download.
    @Test func anEncryptedEntryIsRefusedAsEncrypted() throws {
        let s = try ExtractionScratch()
        #expect {
            _ = try s.extract(ExtractionScratch.fixture("encrypted.zip"))
        } throws: { error in
            guard case ExtractionError.encrypted(let entry) = error else { return false }
            return entry == "a.txt"
        }
        #expect(s.allPaths() == ["one", "one/two", "one/two/three"])
    }

    @Test func moreEntriesThanMaxEntriesAreRefused() throws {
        let s = try ExtractionScratch()
        #expect {
            _ = try s.extract(ExtractionScratch.fixture("many-entries.tar.gz"), options: .init(maxEntries: 100))
        } throws: { error in
            guard case ExtractionError.tooManyEntries(let limit) = error else { return false }
            return limit == 100
        }
        #expect(s.allPaths() == ["one", "one/two", "one/two/three"])
        #expect(try s.extract(ExtractionScratch.fixture("many-entries.tar.gz"), options: .init(maxEntries: 200)).files == 200)
    }

    @Test func stripComponentsDropsLeadingFoldersIncludingInHardLinks() throws {
        let s = try ExtractionScratch()
        let result = try s.extract(ExtractionScratch.fixture("good.tar.gz"), options: .init(stripComponents: 1))
        #expect(result.folders == 2)  // "top/" itself is stripped away
        #expect(s.contents("bin/tool-again") == "#!/bin/sh\necho hi\n")
        #expect(s.contents("README") == "read me\n")
    }

    @Test func aFormatThatDoesNotMatchTheFileIsAnErrorNotAGuess() throws {
        let s = try ExtractionScratch()
        #expect {
            _ = try s.extract(ExtractionScratch.fixture("zip-slip.zip"), format: .tarGz)
        } throws: { error in
            guard case ExtractionError.unreadable = error else { return false }
            return true
        }
        #expect(s.allPaths() == ["one", "one/two", "one/two/three"])
    }

    @Test func aTruncatedArchiveLeavesNothingBehind() throws {
        let s = try ExtractionScratch()
        let whole = try Data(contentsOf: URL(fileURLWithPath: ExtractionScratch.fixture("good.tar.gz")))
        let cut = s.root + "/cut.tar.gz"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        #expect(throws: ExtractionError.self) { _ = try s.extract(cut) }
        #expect(!FileManager.default.fileExists(atPath: s.target))
        #expect(!FileManager.default.fileExists(atPath: s.staging))
    }

    @Test func extractingAgainReplacesThePreviousFolderAsAWhole() throws {
        let s = try ExtractionScratch()
        _ = try s.extract(ExtractionScratch.fixture("good.tar.gz"))
        try s.write("left over\n", to: "one/two/three/target/stale.txt")
        _ = try s.extract(ExtractionScratch.fixture("many-entries.tar.gz"), options: ExtractionOptions(replacesFolder: true))
        #expect(s.contents("f199") == "x\n")
        #expect(s.contents("stale.txt") == nil)
        #expect(s.contents("top/README") == nil)
        #expect(!FileManager.default.fileExists(atPath: s.staging))
    }

    /// Not known to be an earlier extraction (`replacesFolder` false), a folder at the
    /// target must hold nothing the archive does not have: the swap would delete it.
    @Test func aFolderHoldingFilesTheArchiveDoesNotHaveIsLeftAsItWas() throws {
        let s = try ExtractionScratch()
        try s.write("mine\n", to: "one/two/three/target/mine.txt")
        try s.write("notes\n", to: "one/two/three/target/deep/notes.txt")
        #expect {
            _ = try s.extract(ExtractionScratch.fixture("good.tar.gz"))
        } throws: { error in
            guard case .foreignFiles(let folder, let examples, let count) = error as? ExtractionError else { return false }
            return folder == s.target && Set(examples) == ["mine.txt", "deep/notes.txt"] && count == 2
        }
        #expect(s.contents("mine.txt") == "mine\n")
        #expect(s.contents("deep/notes.txt") == "notes\n")
        #expect(s.contents("top/README") == nil)
        #expect(!FileManager.default.fileExists(atPath: s.staging))
    }

    /// A file whose name is not UTF-8 (Latin-1 `café.txt`) is someone else's too. Its name,
    /// read as text, named nothing: it was not counted, the folder was swapped, and the old
    /// tree could not be removed around it.
    @Test func aFileWhoseNameIsNotUTF8IsForeignAndAFolderHoldingItIsRemovedWhole() throws {
        let s = try ExtractionScratch()
        try FileManager.default.createDirectory(atPath: s.target + "/top", withIntermediateDirectories: true)
        let latin1 = Array((s.target + "/top/caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".txt".utf8CString)
        let fd = latin1.withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
        #expect(fd >= 0)
        close(fd)
        #expect {
            _ = try s.extract(ExtractionScratch.fixture("good.tar.gz"))
        } throws: { error in
            guard case .foreignFiles(_, let examples, let count) = error as? ExtractionError else { return false }
            return examples == ["top/caf\u{FFFD}.txt"] && count == 1
        }
        #expect(latin1.withUnsafeBufferPointer { access($0.baseAddress!, F_OK) } == 0, "left as it was")
        FolderRemoval.remove(s.target)
        #expect(!FileManager.default.fileExists(atPath: s.target))
    }

    @Test func aFolderHoldingOnlyFilesTheArchiveHasIsReplaced() throws {
        let s = try ExtractionScratch()
        _ = try s.extract(ExtractionScratch.fixture("good.tar.gz"))
        try s.write("edited\n", to: "one/two/three/target/top/README")
        _ = try s.extract(ExtractionScratch.fixture("good.tar.gz"))
        #expect(s.contents("top/README") == "read me\n")
    }

    @Test func aFileInTheWayOfTheTargetIsKeptAndReported() throws {
        let s = try ExtractionScratch()
        try s.write("mine\n", to: "one/two/three/target")
        #expect(throws: ExtractionError.self) { _ = try s.extract(ExtractionScratch.fixture("good.tar.gz")) }
        #expect(try String(contentsOfFile: s.target, encoding: .utf8) == "mine\n")
        #expect(!FileManager.default.fileExists(atPath: s.staging))
    }

    /// The folder, and folders the archive only implies, end with the mode `tar -x` gives a
    /// new folder (0777 less the umask), not the 0700 that keeps them private while they
    /// fill: a web server reading an extracted site was refused. A folder replaced keeps
    /// the mode it had.
    @Test func theFolderGetsANewFoldersModeOrKeepsTheModeOfTheOneItReplaces() throws {
        let s = try ExtractionScratch()
        try s.write("e\n", to: "e.txt")
        let archive = s.root + "/implied.tar"
        _ = try ArchiveWriter.write([.init(name: "d/e.txt", sourcePath: s.root + "/e.txt")],
                                    to: archive, format: .tar, level: nil, reproducible: false)
        #expect(mkdir(s.root + "/probe", 0o777) == 0)
        let newFolder = s.mode(s.root + "/probe")
        _ = try s.extract(archive)
        #expect(s.mode(s.target) == newFolder)
        #expect(s.mode(s.target + "/d") == newFolder)
        #expect(chmod(s.target, 0o750) == 0)
        _ = try s.extract(archive, options: ExtractionOptions(replacesFolder: true))
        #expect(s.mode(s.target) == 0o750)
        #expect(s.contents("d/e.txt") == "e\n")
    }

    /// As `tar -x`: root keeps the archived modes, anyone else has the umask applied (a
    /// 0666 file became world-writable for every user before).
    @Test(arguments: [true, false])
    func archivedModesAreKeptAsRootAndLoseTheUmaskOtherwise(keeps: Bool) throws {
        let s = try ExtractionScratch()
        try s.write("w\n", to: "w.txt")
        #expect(chmod(s.root + "/w.txt", 0o666) == 0)
        let archive = s.root + "/modes.tar"
        _ = try ArchiveWriter.write([.init(name: "w.txt", sourcePath: s.root + "/w.txt")], to: archive, format: .tar, level: nil, reproducible: false)
        #expect(mkdir(s.root + "/probe", 0o777) == 0)
        let newFolder = try #require(s.mode(s.root + "/probe"))
        #expect(newFolder != 0o777, "the test needs a umask")
        _ = try s.extract(archive, options: ExtractionOptions(keepsArchivedModes: keeps))
        #expect(s.mode(s.target + "/w.txt") == (keeps ? 0o666 : 0o666 & newFolder))
    }

    @Test(arguments: ArchiveFileFormat.allCases)
    func whatTheWriterPacksTheExtractorUnpacksByteForByte(format: ArchiveFileFormat) throws {
        let s = try ExtractionScratch()
        let big = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try big.write(to: URL(fileURLWithPath: s.root + "/big.bin"))
        try s.write("small\n", to: "small.txt")
        let archive = s.root + "/packed." + format.rawValue
        _ = try ArchiveWriter.write([.init(name: "d/big.bin", sourcePath: s.root + "/big.bin"),
                                     .init(name: "small.txt", sourcePath: s.root + "/small.txt")],
                                    to: archive, format: format, level: nil, reproducible: false)
        let result = try s.extract(archive, format: format)
        #expect(result.files == 2)
        #expect(result.bytesOut == 600_006)
        #expect(FileManager.default.contents(atPath: s.target + "/d/big.bin") == big)
        #expect(s.contents("small.txt") == "small\n")
        // And told apart by content when the format is not given.
        FolderRemoval.remove(s.target)
        #expect(try s.extract(archive).files == 2)
    }

    /// A zip written by Python (or any zip tool) marks UTF-8 names with a flag; read in the
    /// "C" locale, libarchive could not convert `é` and the entry had no name at all
    /// ("refused entry \"\": it has an empty name").
    @Test func aZipsUTF8NamesAreExtractedUnderThem() throws {
        let s = try ExtractionScratch()
        let archive = s.root + "/python.zip"
        let made = ChildProcess.run("/usr/bin/env", ["python3", "-c", """
            import zipfile, sys
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("s1/résumé.txt", "cv")
                z.writestr("データ/東京.txt", "tokyo")
            """, archive])
        try #require(made.status == 0, "python3: \(made.text)")
        let result = try s.extract(archive, format: .zip)
        #expect(result.files == 2)
        #expect(s.contents("s1/résumé.txt") == "cv")
        #expect(s.contents("データ/東京.txt") == "tokyo")
    }
}

@Suite("Archive extraction on a full disk")
struct FullDiskExtractionTests {
    @Test func aFullDiskStopsTheExtractionWithENOSPCAndLeavesNothing() throws {
        guard let disk = SmallFilesystem.mount(bytes: 1 << 20) else {
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("cannot mount a tmpfs: CI runs as root") }
            return
        }
        let target = disk.path + "/target"
        #expect {
            _ = try ArchiveExtractor.extract(archiveAt: ExtractionScratch.fixture("bomb.zip"), format: nil, to: target,
                                             staging: target + ".xferpart", options: .init())
        } throws: { error in
            guard case ExtractionError.io(_, let code, let message) = error else { return false }
            return code == ENOSPC && message.contains("No space left on device")
        }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: disk.path)) == [])
    }
}
