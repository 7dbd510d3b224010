import Foundation
import Testing
@testable import XferBatch

@Suite("The state folder")
struct StateFolderTests {
    /// Every name a run writes into a state folder, the SQLite side files included.
    static let keptNames = ["checkpoints.sqlite", "checkpoints.sqlite-wal", "checkpoints.sqlite-shm", "checkpoints.sqlite-journal",
                            "checkpoints.sqlite.corrupt-1763700000", "done.journal", "done.journal-1", "lock"]

    static func stateFolder(in scratch: TemporaryFolder, with names: [String]) throws -> StateFolder {
        let folder = StateFolder(scratch.path + "/state")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        for name in names { try #require(FileManager.default.createFile(atPath: folder.path + "/" + name, contents: Data([1]))) }
        return folder
    }

    @Test func removingItDeletesEveryFileARunKeepsThereAndTheFolder() throws {
        let s = try TemporaryFolder("state")
        let folder = try Self.stateFolder(in: s, with: Self.keptNames)
        try folder.remove()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func aStateFolderHoldingOtherFilesIsKeptWithThemAndTheErrorNamesThem() throws {
        let s = try TemporaryFolder("state")
        let folder = try Self.stateFolder(in: s, with: Self.keptNames + ["notes.txt", "checkpoints.sqlite.bak"])
        try FileManager.default.createDirectory(atPath: folder.path + "/photos", withIntermediateDirectories: false)
        let error = #expect(throws: StateFolder.RemovalError.self) { try folder.remove() }
        #expect(error?.message == "kept the folder \(folder.path): it holds files xferbatch did not write (checkpoints.sqlite.bak, notes.txt, photos)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["checkpoints.sqlite.bak", "notes.txt", "photos"])
    }

    @Test func aMissingStateFolderCountsAsRemoved() throws {
        let s = try TemporaryFolder("state")
        try StateFolder(s.path + "/never-made").remove()
    }

    @Test func theStoreJournalAndLockPathsAreAmongTheNamesItRemovesAndNoOthers() {
        let folder = StateFolder("/srv/sync/.xferbatch/nightly.json")
        #expect([folder.database, folder.journal, folder.lock] == ["/srv/sync/.xferbatch/nightly.json/checkpoints.sqlite",
                                                                  "/srv/sync/.xferbatch/nightly.json/done.journal",
                                                                  "/srv/sync/.xferbatch/nightly.json/lock"])
        #expect(Self.keptNames.allSatisfy(StateFolder.keeps))
        #expect(!StateFolder.keeps("checkpoints.sqlite.bak") && !StateFolder.keeps("lock.txt") && !StateFolder.keeps("done.journal-2"))
    }

    /// A link planted at a state file's name (the folder beside a manifest may be shared)
    /// is refused by name; what it leads to is not written.
    @Test(arguments: ["lock", "done.journal", "done.journal-1", "checkpoints.sqlite", "checkpoints.sqlite-wal"])
    func aStateFileThatIsALinkIsNotOpenedThroughIt(name: String) async throws {
        let s = try TemporaryFolder("state")
        let folder = StateFolder(s.path + "/state")
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let target = s.path + "/precious.txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/" + name, withDestinationPath: target)
        let expected = "\(folder.path)/\(name) is a symbolic link; a state file is never opened through one"
        do {
            switch name {
            case "lock": _ = try await RunLock.acquire(stateFolder: folder.path)
            case "done.journal", "done.journal-1": _ = try DoneJournal(path: folder.journal)
            default: _ = try SQLiteCheckpointStore(path: folder.database)
            }
            Issue.record("\(name): opened through the link")
        } catch let error as CheckpointError {
            #expect(error.message.hasPrefix(expected), "\(error.message)")
        }
        #expect(FileManager.default.contents(atPath: target) == Data("precious".utf8))
    }

    /// `status` during a nightly run says a run is under way, and whose: the states it
    /// shows are only what that run has recorded so far. Asking takes and creates nothing.
    @Test func whoHoldsTheLockIsKnownWithoutTakingIt() async throws {
        let s = try TemporaryFolder("state")
        let path = s.path + "/state"
        #expect(RunLock.holder(ofStateFolder: path) == nil)
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is created by asking")
        var lock: RunLock? = try await RunLock.acquire(stateFolder: path)
        let held = try #require(RunLock.holder(ofStateFolder: path))
        #expect(held.holder.hasPrefix("pid \(getpid()) since "))
        #expect(RunLock.holder(ofStateFolder: path) != nil, "asking twice leaves it held")
        withExtendedLifetime(lock) {}
        lock = nil
        #expect(RunLock.holder(ofStateFolder: path) == nil)
        #expect(JobStatus.text([], runUnderWay: held.holder)
            .hasPrefix("a run is under way (\(held.holder)); the states below are what it has recorded so far\n"))
    }

    /// `clean` removes the folder while it holds the lock; a run waiting for that lock must
    /// not then hold a lock on a file that has no name, which would let a third run in.
    @Test func aRunWaitingForTheLockTakesANewOneWhenTheFolderIsRemovedUnderIt() async throws {
        let s = try TemporaryFolder("state")
        let path = s.path + "/state"
        var holder: RunLock? = try await RunLock.acquire(stateFolder: path)
        let (waiting, announce) = AsyncStream<Void>.makeStream()
        let waiter = Task { try await RunLock.acquire(stateFolder: path, wait: .indefinitely) { _ in announce.yield() } }
        for await _ in waiting { break }
        try StateFolder(path).remove()
        holder = nil
        let lock = try await waiter.value
        #expect(FileManager.default.fileExists(atPath: StateFolder(path).lock), "the folder and its lock file are made again")
        await #expect(throws: RunLock.Held.self, "the waiter holds the lock that has the name") {
            _ = try await RunLock.acquire(stateFolder: path)
        }
        withExtendedLifetime((holder, lock)) {}
    }
}
