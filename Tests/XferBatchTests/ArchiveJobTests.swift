import Foundation
import Testing
@testable import XferBatch
import XferFixtures

/// Archive and extract jobs inside a run: downloads feed them, the store remembers them.
@Suite("Archive and extract jobs")
struct ArchiveJobTests {
    typealias E = ExecutorTesting

    /// The hostile and well-formed archives of the XferArchive tests (see make_fixtures.py there).
    static func fixture(_ name: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return Array(try Data(contentsOf: folder.appendingPathComponent("XferArchiveTests/Fixtures/\(name)")))
    }

    static let extractJobs = E.download("zip", "https://x.org/a.tgz", to: "a.tgz", inner: #", "refresh": "always""#)
        + #", {"id": "unpack", "extract": {"from": "zip", "to": "unpacked"}}"#

    @Test func aDownloadedTarballIsExtractedIntoItsFolderWithItsCounts() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a.tgz", [.body(try Self.fixture("good.tar.gz"))])
        let result = await t.run(try t.plan(jobs: Self.extractJobs))
        #expect(result.state("unpack") == .succeeded)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/unpacked/top/README") == Data("read me\n".utf8))
        let stats = try #require(result.job("unpack")?.result?.archive)
        #expect(stats.entries == 8)
        #expect(stats.bytesOut == 33)
        #expect(stats.bytesIn == Int64(try Self.fixture("good.tar.gz").count))
        #expect(t.events.events.contains { if case .jobSucceeded("unpack", 33, _, _, stats, _) = $0 { true } else { false } })
    }

    @Test func aHostileArchiveFailsAtOnceAndLeavesNoFolder() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a.tgz", [.body(try Self.fixture("zip-slip.zip"))])
        let result = await t.run(try t.plan(jobs: Self.extractJobs))
        #expect(result.state("unpack") == .failed)
        let attempts = try #require(result.job("unpack")?.lifecycle.attempts)
        #expect(attempts.count == 1, "refusals are permanent: the same archive would be refused again")
        #expect(attempts.first?.failure?.code == "unsafe-archive")
        #expect(attempts.first?.failure?.message.contains("refused entry \"../evil.txt\"") == true)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/unpacked"))
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/unpacked.xferpart"))
        #expect(!FileManager.default.fileExists(atPath: t.folder.deletingLastPathComponent().path + "/evil.txt"))
        #expect(result.exitStatus == .jobsFailed)
    }

    /// A login page served with 200 in place of the artifact: the extraction says so, where
    /// libarchive's "Unrecognized archive format" alone named no cause.
    @Test func anArchiveThatIsAWebPageSaysSo() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let page = "\n<!DOCTYPE html>\n<html><head><title>Sign in · Artifacts</title></head><body><form>…</form></body></html>"
        t.transport.script("https://x.org/a.tgz", [.body(Array(page.utf8))])
        let result = await t.run(try t.plan(jobs: Self.extractJobs))
        let failure = try #require(result.job("unpack")?.lifecycle.attempts.first?.failure)
        #expect(failure.code == "archive-unreadable")
        #expect(failure.message.hasSuffix("; the file holds a web page titled \"Sign in · Artifacts\", not an archive: was it downloaded with the right URL and credentials?"),
                "\(failure.message)")
    }

    /// A tarball cut short (a server that closed early without announcing a length) is
    /// done and up to date on every later run: the failure says how to fetch it again.
    @Test func aDamagedArchiveSaysHowToFetchItAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let whole = try Self.fixture("good.tar.gz")
        t.transport.script("https://x.org/a.tgz", [.body(Array(whole.prefix(whole.count / 2)))])
        let result = await t.run(try t.plan(jobs: Self.extractJobs))
        let failure = try #require(result.job("unpack")?.lifecycle.attempts.first?.failure)
        #expect(failure.code == "archive-unreadable")
        #expect(failure.message.hasSuffix("; if job \"zip\" left a damaged file, `xferbatch reset MANIFEST zip` makes the next run "
                                          + "fetch or build it again (a sha256 in the manifest catches a damaged download)"), "\(failure.message)")
    }

    /// A file that should be an archive but holds text is described by its content.
    @Test func whatAFileHoldsInsteadOfAnArchiveIsToldFromItsContent() {
        func describe(_ text: String) -> String? { ContentSniff.describe(Array(text.utf8)) }
        #expect(describe("  <!doctype HTML><title>Log in</title>") == "a web page titled \"Log in\"")
        #expect(describe("<html><body>no title</body></html>") == "a web page")
        #expect(describe(#"{"message": "Bad credentials"}"#) == #"text: {"message": "Bad credentials"}"#)
        #expect(describe("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>") == "text: AccessDenied")
        #expect(describe("") == "an empty file")
        #expect(ContentSniff.describe([0x1F, 0x8B, 0x08, 0x00]) == nil, "binary: a damaged archive, not text")
        #expect(ContentSniff.describe([0x50, 0x4B, 0xFF, 0xFE, 0x41, 0x42]) == nil, "not UTF-8: not text either")
    }

    /// The tarball's URL answers good.tar.gz twice (the same bytes), then another archive.
    static func scriptTwoGoodThenAnother(_ t: E) throws {
        t.transport.script("https://x.org/a.tgz", [.body(try fixture("good.tar.gz")), .body(try fixture("good.tar.gz")),
                                                   .body(try fixture("many-entries.tar.gz"))])
    }

    @Test func anExtractionIsRedoneOnlyWhenItsArchiveChanged() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let plan = try t.plan(jobs: Self.extractJobs)
        try Self.scriptTwoGoodThenAnother(t)
        _ = await t.run(plan, store: store)
        let extracted = try #require(FileStamp.of(t.folder.path + "/a.tgz"))
        // The same bytes downloaded again: the file in place is kept as it was, so the
        // extraction stays up to date.
        let again = await t.run(plan, store: store)
        #expect(again.job("zip")?.result?.upToDate == false, "fetched: refresh always")
        #expect(FileStamp.of(t.folder.path + "/a.tgz") == extracted)
        #expect(again.job("unpack")?.result?.upToDate == true)
        // Nothing downloaded (the download is up to date when not refreshed): nothing extracted.
        let unrefreshed = try t.plan(jobs: Self.extractJobs.replacingOccurrences(of: #", "refresh": "always""#, with: ""))
        #expect(JobFingerprint.of(unrefreshed.jobs[1]) == JobFingerprint.of(plan.jobs[1]))
        let quiet = await t.run(unrefreshed, store: store)
        #expect(quiet.job("unpack")?.result?.upToDate == true)
        // A different archive replaces the folder as a whole.
        let changed = await t.run(plan, store: store)
        #expect(changed.job("unpack")?.result?.upToDate == false)
        #expect(FileManager.default.fileExists(atPath: t.folder.path + "/unpacked/f199"))
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/unpacked/top"))
    }

    /// An extraction's folder is swapped into place whole, so a symbolic link there (to a
    /// release folder, say) or a file cannot take it: the job fails before unpacking
    /// anything (it failed after unpacking all of it, calling the link "not a folder"), the
    /// link and its folder stay as they were, and `plan` says so first.
    @Test func anExtractionIntoASymbolicLinkOrAFileFailsBeforeUnpacking() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a.tgz", [.body(try Self.fixture("good.tar.gz")), .body(try Self.fixture("good.tar.gz"))])
        let plan = try t.plan(jobs: Self.extractJobs)
        let unpack = try #require(plan.jobs.firstIndex { $0.id == "unpack" })
        let link = t.folder.path + "/unpacked"
        try FileManager.default.createDirectory(atPath: t.folder.path + "/releases/7", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "releases/7")
        let expected = "\(link) is a symbolic link (to releases/7), not a folder: an extraction replaces its folder whole, "
            + "which would replace the link; name the folder it leads to as \"to\""
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions[unpack] == .fails(reason: expected))
        let result = await t.run(plan)
        #expect(result.job("unpack")?.lifecycle.reason == "not-a-file: " + expected)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "releases/7")
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path + "/releases/7") == [])
        try FileManager.default.removeItem(atPath: link)
        _ = FileManager.default.createFile(atPath: link, contents: Data("a file\n".utf8))
        #expect(await t.run(plan).job("unpack")?.lifecycle.reason
                == "not-a-file: \(link) is a file, not a folder; remove it or choose another \"to\"")
    }

    /// A folder the job did not extract before keeps files the archive does not have: the
    /// job fails naming them; once it has extracted there, the folder is its own.
    @Test func aFirstExtractionDoesNotDeleteFilesItDidNotPutThere() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let plan = try t.plan(jobs: Self.extractJobs)
        try Self.scriptTwoGoodThenAnother(t)
        let mine = t.folder.path + "/unpacked/mine.txt"
        try FileManager.default.createDirectory(atPath: t.folder.path + "/unpacked", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: mine, contents: Data("mine\n".utf8))
        // `plan` says so before the run, which would download the archive to find out.
        let unpack = try #require(plan.jobs.firstIndex { $0.id == "unpack" })
        #expect(RunForecast(plan: plan, store: store).actions[unpack] == .intoOccupiedFolder(path: t.folder.path + "/unpacked", entries: 1))
        let refused = await t.run(plan, store: store)
        #expect(refused.state("unpack") == .failed)
        #expect(refused.job("unpack")?.lifecycle.reason
                == "foreign-files: \(t.folder.path)/unpacked holds a file the archive does not have (mine.txt), which extracting would delete: move it away or extract into another folder")
        #expect(FileManager.default.contents(atPath: mine) == Data("mine\n".utf8))
        try FileManager.default.removeItem(atPath: mine)
        #expect(await t.run(plan, store: store).state("unpack") == .succeeded)
        _ = FileManager.default.createFile(atPath: mine, contents: Data("mine\n".utf8))
        #expect(RunForecast(plan: plan, store: store).actions[unpack] == .skipIfUnchanged, "its own folder")
        let changed = await t.run(plan, store: store)
        #expect(changed.job("unpack")?.result?.upToDate == false, "another archive")
        #expect(changed.state("unpack") == .succeeded, "its own folder is replaced whole, as documented")
        #expect(!FileManager.default.fileExists(atPath: mine))
    }

    @Test func anArchiveJobReportsEntriesAndBytesAndIsRebuiltOnlyWhenAnInputChanged() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array(repeating: 65, count: 10_000))])
        let jobs = E.download("a", "https://x.org/a", to: "a.txt") + #", {"id": "z", "archive": {"from": ["a"], "to": "z.tar.gz"}}"#
        let first = await t.run(try t.plan(jobs: jobs), store: store)
        let stats = try #require(first.job("z")?.result?.archive)
        #expect(stats.entries == 1)
        #expect(stats.bytesIn == 10_000)
        #expect(stats.bytesOut < 1_000, "10,000 equal bytes compress well")
        #expect(stats.ratio.map { $0 < 0.1 } == true)
        // Hashed while written, on another thread: the same as reading the file back.
        #expect(first.job("z")?.result?.sha256 == (try FileDigest.sha256(ofFileAt: t.folder.path + "/z.tar.gz")))
        let second = await t.run(try t.plan(jobs: jobs), store: store)
        #expect(second.job("z")?.result?.upToDate == true)
        try Data("changed".utf8).write(to: t.folder.appendingPathComponent("a.txt"))
        let third = await t.run(try t.plan(jobs: jobs), store: store)
        #expect(third.job("z")?.result?.upToDate == false)
    }

    /// Written inside its own input folder (or matched by its own glob), the archive is not
    /// an input: otherwise each run packed the previous archive and was never up to date.
    @Test(arguments: [#"["d"]"#, #"["d/*"]"#])
    func anArchiveWrittenInsideItsInputFolderDoesNotPackItself(from: String) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        try FileManager.default.createDirectory(atPath: t.folder.path + "/d", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: t.folder.appendingPathComponent("d/a.txt"))
        let jobs = #"{"id": "z", "archive": {"from": \#(from), "to": "d/z.tar"}}"#
        #expect(await t.run(try t.plan(jobs: jobs), store: store).state("z") == .succeeded)
        let again = await t.run(try t.plan(jobs: jobs), store: store)
        #expect(again.job("z")?.result?.upToDate == true)
        #expect(try Self.tarNames(t.folder.path + "/d/z.tar") == ["d/a.txt"])
    }

    /// `outputDir: "."` and an archive of `"."`: the state folders beside the manifest and
    /// the one given with `--state` are the run's own, a checkpoint database being written;
    /// they were packed too.
    @Test func aFolderInputHoldingStateFoldersDoesNotPackThem() async throws {
        let t = try E()
        defer { t.cleanUp() }
        for file in [".xferbatch/m.json/checkpoints.sqlite", "st/checkpoints.sqlite", "st/lock", "a.txt", "docs/b.txt"] {
            let path = t.folder.path + "/" + file
            try FileManager.default.createDirectory(atPath: PathText.parent(path), withIntermediateDirectories: true)
            try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        }
        let plan = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["."], "to": "all.tar"}}"#, stateFolder: t.folder.path + "/st")
        #expect(await t.run(plan).state("z") == .succeeded)
        #expect(try Self.tarNames(t.folder.path + "/all.tar") == ["a.txt", "docs/b.txt"])
    }

    /// A folder holding a pipe and a socket (a running program's) packs its files, as
    /// `tar` does; a pipe named as an input fails the job, and `plan` says so. Before,
    /// the job waited on the pipe forever.
    @Test(.timeLimit(.minutes(1))) func pipesAndSocketsAreNotPackedAndOneNamedAsAnInputFailsTheJob() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let logs = t.folder.path + "/logs"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: logs + "/a.log"))
        #expect(mkfifo(logs + "/pipe", 0o600) == 0)
        let socket = Self.unixSocket(at: logs + "/sock")  // as a running program leaves one
        defer { close(socket) }
        let folderPlan = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["logs"], "to": "logs.tar"}}"#)
        #expect(await t.run(folderPlan).state("z") == .succeeded)
        #expect(try Self.tarNames(t.folder.path + "/logs.tar") == ["logs/a.log"])
        let named = try t.plan(jobs: #"{"id": "p", "archive": {"from": ["logs/pipe"], "to": "p.tar"}}"#)
        let message = "\(logs)/pipe is a named pipe, not a file; only files are packed"
        #expect(RunForecast(plan: named, store: InMemoryCheckpointStore()).actions == [.fails(reason: message)])
        #expect(await t.run(named).job("p")?.lifecycle.reason == "not-a-file: \(message)")
    }

    /// Symbolic links in a folder input: one to a file is packed as that file, one leading
    /// nowhere and one to a folder inside the walked one are passed over (the latter's files
    /// are packed under their own names), and one to a folder outside fails the job, named,
    /// in `plan` too, until that folder is an input too. Before, its files were left out
    /// without a word.
    @Test func aLinkToAFolderOutsideTheInputFailsTheJobAndOtherLinksPackAsFiles() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let data = t.folder.path + "/data", elsewhere = t.folder.path + "/elsewhere"
        for folder in [data + "/releases/7", elsewhere] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Data("a".utf8).write(to: URL(fileURLWithPath: data + "/a.txt"))
        try Data("r".utf8).write(to: URL(fileURLWithPath: data + "/releases/7/r.txt"))
        try Data("e".utf8).write(to: URL(fileURLWithPath: elsewhere + "/e.txt"))
        #expect(symlink("a.txt", data + "/link-to-a") == 0)
        #expect(symlink("missing.txt", data + "/dangling") == 0)
        #expect(symlink("releases/7", data + "/current") == 0)
        #expect(symlink("../elsewhere", data + "/outside") == 0)
        let plan = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["data"], "to": "data.tar"}}"#)
        let message = "\(data)/outside is a symbolic link to the folder \(elsewhere), outside \(data), and its files would be left out; "
            + "name that folder as an input too, or put the folder itself in the link's place"
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == [.fails(reason: message)])
        #expect(await t.run(plan).job("z")?.lifecycle.reason == "link-outside: " + message)
        let both = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["data", "elsewhere"], "to": "data.tar"}}"#)
        #expect(await t.run(both).state("z") == .succeeded)
        #expect(try Self.tarNames(t.folder.path + "/data.tar") == ["data/a.txt", "data/link-to-a", "data/releases/7/r.txt", "elsewhere/e.txt"])
    }

    /// A named pipe, a socket and a link to nothing under an input folder have no content
    /// to pack: the archive is built without them, and `plan` and the result name each.
    @Test func pathsWithoutContentArePassedOverAndNamed() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let data = t.folder.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: data + "/a.txt"))
        #expect(mkfifo(data + "/pipe", 0o644) == 0)
        #expect(symlink("missing.txt", data + "/dangling") == 0)
        let socket = Self.unixSocket(at: data + "/sock")
        defer { close(socket) }
        let plan = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["data"], "to": "data.tar"}}"#)
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).warnings[0] == "passes over 3 paths with no content to pack: "
                + "data/dangling (a symbolic link to nothing), data/pipe (a named pipe), data/sock (a socket)", "plan says it first")
        let result = await t.run(plan)
        #expect(result.state("z") == .succeeded)
        #expect(try Self.tarNames(t.folder.path + "/data.tar") == ["data/a.txt"])
        #expect(result.job("z")?.result?.archive?.passedOver == [
            .init(path: "data/dangling", kind: "a symbolic link to nothing"),
            .init(path: "data/pipe", kind: "a named pipe"),
            .init(path: "data/sock", kind: "a socket"),
        ])
    }

    /// A listening Unix socket bound at `path`; its descriptor (-1 when it could not be made).
    static func unixSocket(at path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8).prefix($0.count - 1)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0, "cannot bind a socket at \(path)")
        return fd
    }

    /// Two downloads (a.txt, b.txt) packed into z.tar by an archive job that removes them.
    static func packing(_ t: E) throws -> Plan {
        t.transport.script("https://x.org/a", [.body(Array("aa".utf8))])
        t.transport.script("https://x.org/b", [.body(Array("bbb".utf8))])
        return try t.plan(jobs: E.download("a", "https://x.org/a", to: "a.txt") + "," + E.download("b", "https://x.org/b", to: "b.txt")
                          + #", {"id": "z", "archive": {"from": ["a", "b"], "to": "z.tar", "removeSources": true}}"#)
    }

    /// "Download, pack, keep only the archive": a re-run transfers nothing, though the
    /// downloads' files are gone (before, each run fetched them again and rebuilt the archive).
    @Test func downloadsAnArchivePackedAndRemovedAreNotFetchedAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let plan = try Self.packing(t)
        #expect(await t.run(plan, store: store).summary.succeeded == 3)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/a.txt"))
        let built = try #require(FileStamp.of(t.folder.path + "/z.tar"))
        let forecast = RunForecast(plan: plan, store: store)
        #expect(forecast.actions[0] == .packed(archive: t.folder.path + "/z.tar"))
        #expect(forecast.actions[1] == .packed(archive: t.folder.path + "/z.tar"))
        let again = await t.run(plan, store: store)
        #expect(again.summary.upToDate == 3)
        #expect(t.transport.requests.count == 2, "nothing fetched again")
        #expect(FileStamp.of(t.folder.path + "/z.tar") == built, "the archive is not rebuilt")
        let status = try JobStatus.all(plan: plan, store: store)
        #expect(status.map(\.state) == [.done, .done, .done])
        #expect(status[0].packedInto == t.folder.path + "/z.tar")
    }

    /// The archive changed (or was removed) since: its sources come back and it is rebuilt.
    @Test func anArchiveChangedSinceBringsBackTheSourcesItRemoved() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let plan = try Self.packing(t)
        _ = await t.run(plan, store: store)
        try Data("not the archive".utf8).write(to: t.folder.appendingPathComponent("z.tar"))
        let again = await t.run(plan, store: store)
        #expect(again.summary.succeeded == 3)
        #expect(t.transport.requests.count == 4)
        #expect(try Self.tarNames(t.folder.path + "/z.tar") == ["a.txt", "b.txt"])
    }

    /// As `tar -czf d.tar.gz d` packs a folder: every file under it, named by its path.
    @Test func aFolderInputIsPackedWithEveryFileUnderItAndRebuiltWhenOneIsAdded() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        try FileManager.default.createDirectory(atPath: t.folder.path + "/d/sub", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: t.folder.appendingPathComponent("d/a.txt"))
        try Data("bb".utf8).write(to: t.folder.appendingPathComponent("d/sub/b.txt"))
        let jobs = #"{"id": "z", "archive": {"from": ["d"], "to": "d.tar"}}"#
        let first = await t.run(try t.plan(jobs: jobs), store: store)
        #expect(first.state("z") == .succeeded)
        #expect(first.job("z")?.result?.archive?.entries == 2)
        #expect(first.job("z")?.result?.archive?.bytesIn == 3)
        #expect(try Self.tarNames(t.folder.path + "/d.tar") == ["d/a.txt", "d/sub/b.txt"])
        #expect(await t.run(try t.plan(jobs: jobs), store: store).job("z")?.result?.upToDate == true)
        try Data("c".utf8).write(to: t.folder.appendingPathComponent("d/sub/c.txt"))
        let third = await t.run(try t.plan(jobs: jobs), store: store)
        #expect(third.job("z")?.result?.upToDate == false)
        #expect(third.job("z")?.result?.archive?.entries == 3)
    }

    /// A file whose name is not UTF-8 (Latin-1 `café.txt`) cannot be packed under its name:
    /// the job fails naming it, where the archive was built without it, silently.
    @Test func aFileWhoseNameIsNotUTF8FailsTheArchiveInsteadOfBeingLeftOut() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try FileManager.default.createDirectory(atPath: t.folder.path + "/d", withIntermediateDirectories: true)
        try Data("ok".utf8).write(to: t.folder.appendingPathComponent("d/ok.txt"))
        let latin1 = Array((t.folder.path + "/d/caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".txt".utf8CString)
        let fd = latin1.withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
        #expect(fd >= 0)
        close(fd)
        let plan = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["d"], "to": "d.tar"}}"#)
        let message = "cannot pack \(t.folder.path)/d/caf\u{FFFD}.txt: its name is not UTF-8 "
            + "(\u{FFFD} stands for the bytes that are not), and only UTF-8 names can be packed; rename it (convmv -f latin1 -t utf8, for example)"
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == [.fails(reason: message)])
        let result = await t.run(plan)
        #expect(result.state("z") == .failed)
        #expect(result.job("z")?.lifecycle.reason == "non-utf8-name: " + message)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/d.tar"))
    }

    @Test func anEmptyFolderInputFailsTheArchiveSayingSo() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try FileManager.default.createDirectory(atPath: t.folder.path + "/d/empty", withIntermediateDirectories: true)
        let result = await t.run(try t.plan(jobs: #"{"id": "z", "archive": {"from": ["d"], "to": "d.tar"}}"#))
        #expect(result.job("z")?.lifecycle.reason == "missing-input: the folder \(t.folder.path)/d holds no files")
    }

    /// Two manifests building one archive at the same time: the second leaves the first's
    /// partial alone (see `PartialLock`).
    @Test func anArchivePartialAnotherProcessIsWritingIsLeftAloneAndTheJobFailsSayingSo() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try Data("a".utf8).write(to: t.folder.appendingPathComponent("a.txt"))
        let partial = t.folder.path + "/z.tar.xferpart"
        try Data("theirs, being built".utf8).write(to: URL(fileURLWithPath: partial))
        let theirs = open(partial, O_RDWR)
        defer { close(theirs) }
        try #require(flock(theirs, LOCK_EX | LOCK_NB) == 0)
        let result = await t.run(try t.plan(jobs: #"{"id": "z", "archive": {"from": ["a.txt"], "to": "z.tar"}}"#))
        #expect(result.job("z")?.lifecycle.reason == "busy: another process is writing \(partial) (a run of another manifest with the same destination?)")
        #expect(FileManager.default.contents(atPath: partial) == Data("theirs, being built".utf8))
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/z.tar"))
    }

    /// Entry names of a tar file, read by the system's tar.
    static func tarNames(_ path: String) throws -> [String] {
        ChildProcess.run("/bin/tar", ["-tf", path]).text.split(separator: "\n").map(String.init)
    }

    @Test func anArchiveChangedSinceItWasBuiltIsBuiltAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array(repeating: 65, count: 10_000))])
        let jobs = E.download("a", "https://x.org/a", to: "a.txt") + #", {"id": "z", "archive": {"from": ["a"], "to": "z.tar"}}"#
        _ = await t.run(try t.plan(jobs: jobs), store: store)
        let archive = t.folder.path + "/z.tar"
        let built = try #require(FileManager.default.contents(atPath: archive))
        var edited = built
        edited[edited.count - 1] ^= 0xFF  // the same size, another byte
        try edited.write(to: URL(fileURLWithPath: archive))
        try CheckpointRunTests.setModificationTime(of: archive, seconds: 1_000)
        let again = await t.run(try t.plan(jobs: jobs), store: store)
        #expect(again.job("z")?.result?.upToDate == false)
        #expect(FileManager.default.contents(atPath: archive) == built)
    }
}

extension ArchiveJobTests {
    /// A path input is under `outputDir`; one written as if relative to the manifest's
    /// folder is not there, which `plan` says and the run says so, not libarchive.
    @Test func anArchiveInputThatIsNotThereFailsAsMissingAndPlanSaysSo() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let missing = t.folder.path + "/notes.txt"
        let plan = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["notes.txt"], "to": "z.tar"}}"#)
        let why = "\(missing) does not exist (an archive's inputs are job ids, or paths under outputDir)"
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == [.fails(reason: why + ", and no job of this manifest writes it")])
        let result = await t.run(plan, store: InMemoryCheckpointStore())
        #expect(result.job("z")?.lifecycle.reason == "missing-input: " + why)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/z.tar.xferpart"))
    }

    /// A path another job writes is not there before the run, and is no problem.
    @Test func anArchiveInputAnotherJobWritesIsNotMissing() throws {
        let t = try E()
        defer { t.cleanUp() }
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", to: "a.txt")
                                  + #", {"id": "z", "dependsOn": ["a"], "archive": {"from": ["a.txt"], "to": "z.tar"}}"#)
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == [.transfer, .transfer])
    }

    /// A path inside the folder an extraction fills, and another archive's file, are written
    /// by jobs of the manifest: not missing. A path beside that folder is.
    @Test func anArchiveInputInsideAnExtractionsFolderOrAnotherArchiveIsNotMissing() throws {
        let t = try E()
        defer { t.cleanUp() }
        let plan = try t.plan(jobs: E.download("zip", "https://x.org/a.zip", to: "a.zip")
                                  + #", {"id": "unpack", "extract": {"from": "zip", "to": "unpacked/"}}"#
                                  + #", {"id": "inner", "dependsOn": ["unpack"], "archive": {"from": ["unpacked/docs/readme.txt"], "to": "inner.tar"}}"#
                                  + #", {"id": "outer", "dependsOn": ["inner"], "archive": {"from": ["inner.tar"], "to": "outer.tar"}}"#
                                  + #", {"id": "beside", "dependsOn": ["unpack"], "archive": {"from": ["unpacked-not/x.txt"], "to": "beside.tar"}}"#)
        let missing = t.folder.path + "/unpacked-not/x.txt"
        let why = "\(missing) does not exist (an archive's inputs are job ids, or paths under outputDir)"
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions
            == [.transfer, .transfer, .transfer, .transfer, .fails(reason: why + ", and no job of this manifest writes it")])
    }
}
