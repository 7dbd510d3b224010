import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

@Suite("Checkpoints: SQLite store")
struct SQLiteCheckpointStoreTests {
    func folder() throws -> String {
        let f = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: f, withIntermediateDirectories: true)
        return f
    }

    /// "Database or disk is full" says which disk and what to do; an I/O error is put down to
    /// a full disk only when there is no room for SQLite's `-shm` file, else kept as it is.
    @Test func aFullDiskIsSaidSoAndAnIOErrorWithRoomLeftIsNot() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let full = SQLiteCheckpointStore.explain(DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full"), dir + "/c.sqlite")
        #expect(full.hasPrefix("the disk is full (") && full.hasSuffix(" free on the file system holding \(dir)); free some space and run again"), "\(full)")
        let io = DatabaseError(resultCode: .SQLITE_IOERR, message: "disk I/O error")
        #expect(SQLiteCheckpointStore.explain(io, dir + "/c.sqlite") == "\(io)", "the temporary folder has room")
    }

    @Test func checkpointsSurviveReopening() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let record = JobCheckpoint(jobID: "a", fingerprint: "f", phase: .done, attempts: 2, bytes: 10, expectedSize: 10, etag: "\"e\"",
                                   lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", finalPath: "/x/a", sha256: "ab", updatedAt: 5)
        do {
            let store = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
            try store.save(record)
            try store.save(JobCheckpoint(jobID: "b", fingerprint: "g", phase: .running))
        }
        let reopened = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(try reopened.load("a") == record)
        #expect(try reopened.all().map(\.jobID) == ["a", "b"])
        #expect(try reopened.all().first == record, "every column, as the start-up preload reads them")
        try reopened.remove(["a"])
        #expect(try reopened.load("a") == nil)
    }

    @Test func aPartialDownloadsCheckpointReadsBackWithEveryColumn() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let partial = JobCheckpoint(jobID: "p", fingerprint: "f", phase: .running, attempts: 3, bytes: 4096, expectedSize: 1 << 40,
                                    etag: "W/\"é\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", partialPath: "/x/p.xferpart",
                                    bootID: "b-1", updatedAt: 1.5, lastError: "HTTP 503: busy", durableBytes: 2048,
                                    finalModified: 1_763_700_000_123_456_789)
        try SQLiteCheckpointStore(path: dir + "/c.sqlite").save(partial)
        let read = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(try read.all() == [partial])
        #expect(try read.load("p") == partial)
    }

    /// A group commit binds every column of each row afresh: a column one record leaves
    /// empty is NULL, not the previous row's value, and a job saved twice keeps the last.
    @Test func aGroupCommitStoresEachRowsOwnValuesAndTheLastSaveOfAJob() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let full = JobCheckpoint(jobID: "a", fingerprint: "f", phase: .running, attempts: 3, bytes: 4096, expectedSize: 8192,
                                 etag: "\"e\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", partialPath: "/x/a.xferpart",
                                 bootID: "b-1", finalPath: "/x/a", sha256: "ab", updatedAt: 1.5, lastError: "HTTP 503: busy",
                                 durableBytes: 2048, finalModified: 7)
        let sparse = JobCheckpoint(jobID: "b", fingerprint: "g", phase: .failed)
        var again = full
        again.phase = .done
        again.bytes = 8192
        again.lastError = nil
        let store = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        try store.saveAll([full, sparse, again])
        #expect(try store.all() == [again, sparse])
    }

    /// A row SQLite refuses fails its group commit, and the store goes on: the next
    /// group is written. (GRDB drops a statement whose step failed from its cache, so the
    /// next commit does not reset it, which would return that failure again.)
    @Test func aFailedGroupCommitLeavesTheStoreUsableForTheNext() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        try store.save(JobCheckpoint(jobID: "first", fingerprint: "f", phase: .done))
        try DatabaseQueue(path: dir + "/c.sqlite").write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON job_checkpoint WHEN NEW.job_id = 'refused'
                BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END
                """)
        }
        #expect(throws: CheckpointError.self) {
            try store.saveAll([JobCheckpoint(jobID: "a", fingerprint: "f", phase: .done),
                               JobCheckpoint(jobID: "refused", fingerprint: "f", phase: .done),
                               JobCheckpoint(jobID: "c", fingerprint: "f", phase: .done)])
        }
        try store.saveAll([JobCheckpoint(jobID: "b", fingerprint: "f", phase: .done)])
        #expect(try store.all().map(\.jobID) == ["b", "first"], "the failed group was rolled back whole")
    }

    /// A value bound past a statement's last parameter is SQLite's range error, thrown
    /// before the statement is stepped rather than lost.
    @Test func aRowBinderThrowsTheFirstBindingSQLiteRefused() throws {
        try DatabaseQueue().read { db in
            let statement = try db.makeStatement(sql: "SELECT ?")
            var row = SQLiteCheckpointStore.RowBinder(statement.sqliteStatement)
            row.add("one")
            try row.check()
            row.add(Int64?.none)
            row.add("three")
            let error = #expect(throws: DatabaseError.self) { try row.check() }
            #expect(error?.resultCode == .SQLITE_RANGE)
            #expect(error?.message == "cannot bind parameter 2", "the first one refused")
        }
    }

    /// The durability argument: a write-ahead log, synced at checkpoints (`NORMAL`, 1);
    /// a new database is created without syncs, and must not stay that way.
    @Test func aNewStoreRunsInWALModeWithNormalSynchronisation() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(try created.settings() == ("wal", 1))
        try created.save(JobCheckpoint(jobID: "a", fingerprint: "f", phase: .running))
        #expect(FileManager.default.fileExists(atPath: dir + "/c.sqlite-wal"))
        #expect(try SQLiteCheckpointStore(path: dir + "/c.sqlite").settings() == ("wal", 1), "reopened")
    }

    @Test func aStoreFromANewerVersionIsRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        let sqlite = ChildProcess.run("/usr/bin/env", ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"INSERT INTO grdb_migrations VALUES ('v99: from the future')\"); c.commit()", dir + "/c.sqlite"])
        #expect(sqlite.status == 0)
        #expect { _ = try SQLiteCheckpointStore(path: dir + "/c.sqlite", busyTimeout: 0.1) } throws: {
            "\($0)".contains("written by a newer xferbatch")
        }
    }

    @Test func aStoreLockedByAnotherConnectionIsNotMovedAsideAsCorrupt() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Another process half-way through creating the store: before it switches to a
        // write-ahead log, its exclusive lock keeps readers out too.
        let other = try DatabaseQueue(path: dir + "/c.sqlite")
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE; CREATE TABLE t (x)")
            defer { try? db.execute(sql: "ROLLBACK") }
            #expect { _ = try SQLiteCheckpointStore(path: dir + "/c.sqlite", busyTimeout: 0.1) } throws: {
                "\($0)".contains("cannot open the state database")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.contains(".corrupt-") })
        #expect(try SQLiteCheckpointStore(path: dir + "/c.sqlite").warning == nil)
    }

    @Test func readingAStoreAnOlderVersionWroteMigratesACopyAndLeavesTheFileAsItWas() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A store from before "v2: durable offsets of partial files", with one finished job.
        let old = try DatabaseQueue(path: dir + "/c.sqlite")
        try SQLiteCheckpointStore.migrations.migrate(old, upTo: "v1: job checkpoints")
        try old.write { db in
            try db.execute(sql: "INSERT INTO job_checkpoint (job_id, fingerprint, phase, attempts, bytes, updated_at) VALUES ('a', 'fp', 'done', 1, 5, 1)")
        }
        try old.close()
        let store = try SQLiteCheckpointStore.reading(path: dir + "/c.sqlite")
        #expect(try store.load("a")?.phase == .done)
        #expect(try store.load("a")?.durableBytes == nil)
        #expect(try store.load("a")?.finalModified == nil, "trusted by size, as when it was written")
        let applied = try DatabaseQueue(path: dir + "/c.sqlite").read { try SQLiteCheckpointStore.migrations.appliedIdentifiers($0) }
        #expect(applied == ["v1: job checkpoints"], "the file is not migrated")
    }

    @Test func readingADamagedStoreShowsItEmptyWithAWarningAndMovesNothing() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let garbage = Data(repeating: 0x5A, count: 8192)
        _ = FileManager.default.createFile(atPath: dir + "/c.sqlite", contents: garbage)
        let store = try SQLiteCheckpointStore.reading(path: dir + "/c.sqlite")
        #expect(store.warning?.contains("unreadable") == true)
        #expect(store.warning?.contains("the next run moves it aside") == true)
        #expect(try store.all().isEmpty)
        #expect(FileManager.default.contents(atPath: dir + "/c.sqlite") == garbage)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.contains(".corrupt-") })
    }

    @Test func aCorruptStoreIsMovedAsideWithAWarning() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/c.sqlite", contents: Data(repeating: 0x5A, count: 8192))
        let store = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(store.warning?.contains("moved it to") == true)
        #expect(try store.all().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).contains { $0.hasPrefix("c.sqlite.corrupt-") })
    }
}
