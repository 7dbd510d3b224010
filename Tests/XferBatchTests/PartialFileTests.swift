import Foundation
import Testing
@testable import XferBatch
import XferFixtures

/// What a run does with something at a partial's name (`<to>.xferpart`) that is not a
/// partial it can write: it is never written through, and a FIFO never blocks the job.
@Suite("Partial files")
struct PartialFileTests {
    typealias E = ExecutorTesting

    @Test func aLinkAtThePartialsNameIsRemovedAndWhatItLeadsToIsKept() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let victim = try Self.plantLink(in: t, at: "a.bin.xferpart")
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")))
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8))
        #expect(Self.kind(t.folder.path + "/a.bin") == S_IFREG, "the download, not the link, is at the final path")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([1, 2, 3]))
    }

    @Test(.timeLimit(.minutes(1)))  // only stops the hang this test is about
    func aNamedPipeAtThePartialsNameIsRemovedInsteadOfWaitedOn() async throws {
        let t = try E()
        defer { t.cleanUp() }
        #expect(mkfifo(t.folder.path + "/a.bin.xferpart", 0o644) == 0)
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")))
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([1, 2, 3]))
    }

    @Test func aPartialWithAnotherNameIsNotWrittenThrough() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let other = t.folder.path + "/other"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: other))
        #expect(link(other, t.folder.path + "/a.bin.xferpart") == 0)
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")))
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: other) == Data("precious".utf8))
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([1, 2, 3]))
    }

    @Test func aFolderAtThePartialsNameIsKeptAndTheJobFailsNamingIt() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let partial = t.folder.path + "/a.bin.xferpart"
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: false)
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")))
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason == "EISDIR: cannot create \(partial): Is a directory")
        #expect(Self.kind(partial) == S_IFDIR)
    }

    @Test func aLinkAtAnArchivesPartialIsRemovedAndWhatItLeadsToIsKept() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let victim = try Self.plantLink(in: t, at: "all.tar.xferpart")
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let jobs = E.download("a", "https://x.org/a") + #", {"id": "z", "archive": {"from": ["a"], "to": "all.tar"}}"#
        let result = await t.run(try t.plan(jobs: jobs))
        #expect(result.state("z") == .succeeded)
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8))
        #expect(Self.kind(t.folder.path + "/all.tar") == S_IFREG)
    }

    // MARK: Continuing a partial

    @Test func aPartialToContinueThatIsNowALinkIsRemovedAndNotContinued() throws {
        let t = try E()
        defer { t.cleanUp() }
        let victim = t.folder.path + "/victim"
        let partial = t.folder.path + "/a.bin.xferpart"
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: partial, withDestinationPath: victim)
        #expect(throws: PartialFile.Failure.notContinuable("\(partial) was not a plain file (it is removed), so it cannot be continued")) {
            try PartialFile.open(partial, resumeFrom: 40)
        }
        #expect(Self.kind(partial) == nil)
        #expect(FileManager.default.contents(atPath: victim) == Data(repeating: 7, count: 100))
    }

    @Test func aPartialShorterThanTheOffsetToContinueAtIsNotExtendedWithZeros() throws {
        let t = try E()
        defer { t.cleanUp() }
        let partial = t.folder.path + "/a.bin.xferpart"
        try Data(repeating: 7, count: 10).write(to: URL(fileURLWithPath: partial))
        #expect(throws: PartialFile.Failure.notContinuable("\(partial) is shorter (10 bytes) than the 40 bytes recorded, so it cannot be continued")) {
            try PartialFile.open(partial, resumeFrom: 40)
        }
        #expect(FileManager.default.contents(atPath: partial) == Data(repeating: 7, count: 10))
    }

    @Test func aPartialToContinueThatIsGoneIsNotMadeAgain() throws {
        let t = try E()
        defer { t.cleanUp() }
        let partial = t.folder.path + "/a.bin.xferpart"
        #expect(throws: PartialFile.Failure.notContinuable("\(partial) was removed, so it cannot be continued")) {
            try PartialFile.open(partial, resumeFrom: 40)
        }
        #expect(Self.kind(partial) == nil)
    }

    @Test func aPartialLongEnoughIsOpenedAsItIs() throws {
        let t = try E()
        defer { t.cleanUp() }
        let partial = t.folder.path + "/a.bin.xferpart"
        try Data(repeating: 7, count: 50).write(to: URL(fileURLWithPath: partial))
        let (fd, created) = try PartialFile.open(partial, resumeFrom: 40)
        defer { close(fd) }
        #expect(!created)
        #expect(FileStamp.of(descriptor: fd)?.size == 50)
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == 0)
    }

    /// A symbolic link at `name` to a file `victim` holding "precious"; the victim's path.
    static func plantLink(in t: E, at name: String) throws -> String {
        let victim = t.folder.path + "/victim"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: t.folder.path + "/" + name, withDestinationPath: victim)
        return victim
    }

    /// The file type at `path` (`S_IFREG`, `S_IFDIR`, `S_IFLNK`...), not following a link;
    /// nil when nothing is there.
    static func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }
}
