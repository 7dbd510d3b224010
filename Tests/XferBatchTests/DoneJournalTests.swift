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

        /// Appends `text` to the journal's first file as it is (a torn or damaged line).
        func appendToJournal(_ text: String) throws {
            let handle = try #require(FileHandle(forWritingAtPath: journal))
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            try handle.close()
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
        try f.appendToJournal(#"{"job": "b", "fingerprint": "fp-b", "byt"#)
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 1)
        #expect(try next.load("a")?.phase == .done)
    }

    /// A line damaged into numbers no field can hold (a disk's bit flip, an edit by hand):
    /// converting them as they are would stop every later run with a crash.
    @Test func aLineWithNumbersOutOfRangeIsSkipped() throws {
        let f = try Folder()
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        try store.saveFinishedFile(try f.finished("a", "alpha"))
        let rest = #""fingerprint": "fp-b", "finalPath": "/x", "sha256": "00""#
        try f.appendToJournal(#"{"job": "b", "bytes": 1e300, \#(rest)}"# + "\n"
                              + #"{"job": "c", "bytes": 4, "attempts": -1e300, \#(rest)}"# + "\n"
                              + #"{"job": "d", "bytes": 4, "expectedSize": 1.5, \#(rest)}"# + "\n"
                              + #"{"job": "e", "bytes": 4, "attempts": 2, \#(rest)}"# + "\n")
        #expect(DoneJournal.records(at: f.journal).map(\.jobID) == ["a", "e"], "the same line with whole numbers is read")
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

    /// A disk that takes the start of a line and refuses the rest: the torn bytes are cut
    /// off, so the line appended once there is room again is read back whole.
    @Test func aLineTheFullDiskCutShortIsTakenBackAndTheNextOneReadsWhole() throws {
        guard let disk = SmallFilesystem.mount(bytes: 64 << 10) else {
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("cannot mount a tmpfs: CI runs as root") }
            return
        }
        let f = try Folder()
        let line = DoneJournal.line(for: try f.finished("a", "alpha"))
        let journal = try DoneJournal(path: disk.path + "/done.journal")
        try journal.append(line)  // the journal's first page is taken before the disk fills
        let filler = open(disk.path + "/filler", O_WRONLY | O_CREAT, 0o644)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(filler, block, block.count) > 0 {}
        close(filler)
        var thrown: (any Error)?
        for _ in 0..<(4096 / line.count + 1) {
            do { try journal.append(line) } catch {
                thrown = error
                break
            }
        }
        #expect("\(thrown.map { "\($0)" } ?? "nothing thrown")".hasSuffix("done.journal: No space left on device"))
        let kept = try Data(contentsOf: URL(fileURLWithPath: journal.path))
        #expect(kept.count % line.count == 0, "whole lines only: \(kept.count) bytes of \(line.count)-byte lines")
        unlink(disk.path + "/filler")
        var last = try f.finished("b", "beta")
        last.updatedAt = 2
        try journal.append(DoneJournal.line(for: last))
        #expect(DoneJournal.records(at: journal.path).map(\.jobID).last == "b")
    }
}
