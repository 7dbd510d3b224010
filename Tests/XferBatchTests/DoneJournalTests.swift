import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

@Suite("Grouped commits and the done journal")
struct DoneJournalTests {
    /// A temporary folder holding a store, its journal and finished files.
    struct Folder {
        let scratch: TemporaryFolder
        var path: String { scratch.path }
        init() throws { scratch = try TemporaryFolder("journal") }
        var database: String { path + "/checkpoints.sqlite" }
        var journal: String { path + "/done.journal" }

        /// A finished download's file and its record.
        func finished(_ id: String, _ text: String) throws -> JobCheckpoint {
            let file = path + "/\(id).txt"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            return JobCheckpoint(jobID: id, fingerprint: "fp-\(id)", phase: .done, attempts: 1, bytes: Int64(text.utf8.count),
                                 etag: "\"e-\(id)\"", finalPath: file, sha256: FileDigest.sha256(ofText: text), updatedAt: 1,
                                 finalModified: FileStamp.of(file)?.modified)
        }
    }

    @Test func aFinishedFileWaitsForItsGroupButAKilledRunLosesNothing() throws {
        let f = try Folder()
        let record = try f.finished("a", "alpha")
        do {
            let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
            try store.saveFinishedFile(record)
            #expect(try store.load("a") == record)
            #expect(try SQLiteCheckpointStore(path: f.database).load("a") == nil, "grouped: not committed yet")
            // The process dies here: no flush.
        }
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 1)
        #expect(try SQLiteCheckpointStore(path: f.database).load("a") == record)
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).isEmpty)
    }

    @Test func aJournalLineWhoseFileIsNotIntactIsNotAdopted() throws {
        let f = try Folder()
        let changed = try f.finished("a", "alpha")
        let missing = try f.finished("b", "beta")
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        try store.saveFinishedFile(changed)
        try store.saveFinishedFile(missing)
        // Same size, other bytes (an older file at the path); and a file that is gone.
        try Data("ALPHA".utf8).write(to: URL(fileURLWithPath: changed.finalPath!))
        try FileManager.default.removeItem(atPath: missing.finalPath!)
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 0)
        #expect(try next.load("a") == nil)
        #expect(try next.load("b") == nil)
    }

    @Test func aTornLastLineIsIgnored() throws {
        let f = try Folder()
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        try store.saveFinishedFile(try f.finished("a", "alpha"))
        let handle = try #require(FileHandle(forWritingAtPath: f.journal))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"job": "b", "fingerprint": "fp-b", "byt"#.utf8))
        try handle.close()
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 1)
        #expect(try next.load("a")?.phase == .done)
    }

    @Test func flushCommitsTheGroupAndEmptiesTheJournal() throws {
        let f = try Folder()
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        for id in ["a", "b", "c"] { try store.saveFinishedFile(try f.finished(id, id)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).split(separator: 0x0A).count == 3)
        try store.flush()
        #expect(try SQLiteCheckpointStore(path: f.database).all().map(\.jobID) == ["a", "b", "c"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).isEmpty)
    }

    @Test func aGroupCommitEmptiesOnlyTheJournalFileItCommitted() throws {
        let f = try Folder()
        do {
            let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal, groupSize: 2)
            for id in ["a", "b", "c"] { try store.saveFinishedFile(try f.finished(id, id)) }
            #expect(try SQLiteCheckpointStore(path: f.database).all().map(\.jobID) == ["a", "b"], "the group of two")
            #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal + "-1")).split(separator: 0x0A).count == 1)
            // The process dies here: "c" is only in the journal's second file.
        }
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 1)
        #expect(try SQLiteCheckpointStore(path: f.database).all().map(\.jobID) == ["a", "b", "c"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal + "-1")).isEmpty)
    }

    @Test func theNewestLineOfAJobWinsWhicheverJournalFileHoldsIt() throws {
        let f = try Folder()
        var old = try f.finished("a", "alpha")
        old.updatedAt = 1
        var new = old
        new.attempts = 2
        new.updatedAt = 2
        // The newer line in the first file, the older in the second (read last).
        try Data(DoneJournal.line(for: new)).write(to: URL(fileURLWithPath: f.journal))
        try Data(DoneJournal.line(for: old)).write(to: URL(fileURLWithPath: f.journal + "-1"))
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(try next.load("a")?.attempts == 2)
    }

    @Test func aLaterSaveOfTheSameJobIsNeverOverwrittenByItsGroupedRecord() throws {
        let f = try Folder()
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        let done = try f.finished("a", "alpha")
        try store.saveFinishedFile(done)
        var failed = done
        failed.phase = .failed
        failed.lastError = "HTTP 500"
        try store.save(failed)
        try store.flush()
        #expect(try SQLiteCheckpointStore(path: f.database).load("a")?.phase == .failed)
    }
}
