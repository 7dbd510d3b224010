import Foundation
import GRDB

/// Checkpoints in SQLite (through GRDB), in the state folder.
///
/// Durability argument: the database runs in WAL mode with `synchronous = NORMAL`. A
/// commit is then safe against process death (`kill -9`, OOM): the WAL frames are in the
/// kernel before `save` returns. Against power loss the last commits may be lost, because
/// the WAL is fsynced only at checkpoints; that is acceptable because nothing is trusted
/// blindly: a job recorded done is re-checked (final file present, recorded size) and a
/// partial file is resumed only within the boot that wrote it. One fsync per transition
/// would cost more than a small transfer itself.
///
/// Schema changes are migrations; a store written by a newer xferbatch is refused with a
/// clear message, and a corrupt one is moved aside (`warning` says so) and replaced.
public final class SQLiteCheckpointStore: CheckpointStore {
    public let path: String
    /// Set when a corrupt store was moved aside on opening.
    public let warning: String?
    private let queue: DatabaseQueue

    /// - Parameter busyTimeout: how long to wait for another connection's lock, in seconds.
    public convenience init(path: String, busyTimeout: TimeInterval = defaultBusyTimeout) throws(CheckpointError) {
        var warning: String? = nil
        var queue: DatabaseQueue
        do {
            queue = try Self.open(path, busyTimeout: busyTimeout)
        } catch let error as CheckpointError {
            throw error
        } catch where !Self.isCorruption(error) {
            // Busy past the timeout, read-only, full disk...: the store may be fine, and
            // moving it aside would throw away another process's good state.
            throw CheckpointError("cannot open the state database \(path): \(Self.explain(error, path))")
        } catch {
            // Unreadable: keep it for inspection, start a new one, and re-verify outputs.
            let aside = path + Self.corruptInfix + "\(Int(Date().timeIntervalSince1970))"
            try? FileManager.default.moveItem(atPath: path, toPath: aside)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            warning = "the state database was unreadable (\(error)); moved it to \(aside) and started a new one"
            do {
                queue = try Self.open(path, busyTimeout: busyTimeout)
            } catch {
                throw CheckpointError("cannot create the state database \(path): \(Self.explain(error, path))")
            }
        }
        self.init(path: path, queue: queue, warning: warning)
    }

    init(path: String, queue: DatabaseQueue, warning: String?) {
        self.path = path
        self.queue = queue
        self.warning = warning
    }

    /// What names a corrupt database moved aside: `<path>.corrupt-<unix time>`.
    static let corruptInfix = ".corrupt-"

    /// How long opening or writing waits for another connection's lock (a `status` beside
    /// a run, or a run that is creating the database) before it gives up, in seconds.
    public static let defaultBusyTimeout: TimeInterval = 5

    private static func open(_ path: String, busyTimeout: TimeInterval) throws -> DatabaseQueue {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        // Created and migrated without fsyncs (a new folder's database cost five, about 5 ms
        // before the first transfer); `NORMAL` from then on. A power loss in between
        // leaves at worst an unreadable store, which is moved aside and rebuilt by
        // re-verifying outputs (below).
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = OFF")
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                throw CheckpointError("cannot use a write-ahead log for the state database \(path)")
            }
        }
        // A database this call creates can be neither damaged nor from a newer version:
        // checking it is skipped (1.5 M instructions, about 0.5 ms before a first run's
        // first transfer). (A write-ahead log left without its database is not read back
        // by SQLite, so it does not make the store an old one.)
        if let linked = StateFolder.linkedDatabaseFile(path) { throw linked }
        let isNew = !FileManager.default.fileExists(atPath: path)
        let queue = try DatabaseQueue(path: path, configuration: config)
        if !isNew { try check(queue, path) }
        try migrations.migrate(queue)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        return queue
    }

    /// Throws SQLITE_CORRUPT when SQLite's `quick_check` finds damage, and a
    /// `CheckpointError` when a newer xferbatch wrote the store (its schema is unknown here).
    static func check(_ queue: DatabaseQueue, _ path: String) throws {
        try queue.read { db in
            let check = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "no answer"
            if check != "ok" { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: check) }
        }
        if try queue.read({ try migrations.hasBeenSuperseded($0) }) {
            throw CheckpointError("the state database \(path) was written by a newer xferbatch; use that version, or remove the state folder (xferbatch clean)")
        }
    }

    /// SQLite's words for `error`, and for a full disk what to do: "database or disk is full"
    /// alone leaves the reader to find out which disk, and that the store itself is fine.
    static func explain(_ error: any Error, _ path: String) -> String {
        guard let error = error as? DatabaseError, [.SQLITE_FULL, .SQLITE_IOERR].contains(error.resultCode) else { return "\(error)" }
        let folder = PathText.parent(path)
        let free = DiskSpace.free(at: folder)
        // Opening a store whose `-shm` file cannot be made is an I/O error to SQLite: with
        // less room than that file's 32 KiB, that is why.
        if error.resultCode == .SQLITE_IOERR, (free ?? .max) >= Self.sharedMemoryFileSize { return "\(error)" }
        return fullDisk(free: free, holding: folder) + "; free some space and run again"
    }

    /// "the disk is full (0 B free on the file system holding `folder`)".
    static func fullDisk(free: Int64?, holding folder: String) -> String {
        "the disk is full (\(free.map { "\(ByteSize.format($0)) free" } ?? "free space unknown") on the file system holding \(folder))"
    }

    /// The size of SQLite's `-shm` file beside a write-ahead-logged database, in bytes.
    static let sharedMemoryFileSize: Int64 = 32 * 1024

    /// Whether an error opening the store means the file is damaged (not busy, not missing).
    static func isCorruption(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// The schema, one migration per change; never edit a registered one.
    static var migrations: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: job checkpoints") { db in
            try db.create(table: "job_checkpoint") { t in
                t.primaryKey("job_id", .text)
                t.column("fingerprint", .text).notNull()
                t.column("phase", .text).notNull()
                t.column("attempts", .integer).notNull()
                t.column("bytes", .integer).notNull()
                t.column("expected_size", .integer)
                t.column("etag", .text)
                t.column("last_modified", .text)
                t.column("partial_path", .text)
                t.column("boot_id", .text)
                t.column("final_path", .text)
                t.column("sha256", .text)
                t.column("updated_at", .double).notNull()
                t.column("last_error", .text)
            }
        }
        m.registerMigration("v2: durable offsets of partial files") { db in
            try db.alter(table: "job_checkpoint") { t in t.add(column: "durable_bytes", .integer) }
        }
        m.registerMigration("v3: modification times of final files") { db in
            try db.alter(table: "job_checkpoint") { t in t.add(column: "final_modified", .integer) }
        }
        return m
    }

    /// SQLite's `journal_mode` and `synchronous` settings of the open connection, for tests
    /// of the durability argument above.
    func settings() throws -> (journalMode: String, synchronous: Int) {
        try wrap {
            try queue.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "", try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
            }
        }
    }

    public func load(_ jobID: String) throws -> JobCheckpoint? {
        try wrap { try queue.read { db in try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM job_checkpoint WHERE job_id = ?", arguments: [jobID]).map(Self.checkpoint) } }
    }

    public func save(_ c: JobCheckpoint) throws {
        try saveAll([c])
    }

    /// One transaction for all of them.
    public func saveAll(_ checkpoints: [JobCheckpoint]) throws {
        guard !checkpoints.isEmpty else { return }
        try wrap {
            try queue.write { db in
                // A cached statement: compiled once per connection, not once per save.
                let statement = try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO job_checkpoint (job_id, fingerprint, phase, attempts, bytes, expected_size, etag,
                        last_modified, partial_path, boot_id, final_path, sha256, updated_at, last_error, durable_bytes,
                        final_modified)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for c in checkpoints {
                    // Resets the statement and clears its parameters; `RowBinder` binds
                    // them (see there why), and `execute()` steps it with them. The reset is
                    // a `try!` in GRDB, which would crash on a statement whose last step
                    // failed; there is none here: a failed step throws out of this loop, and
                    // GRDB drops that statement from its cache (`statementDidFail`), so the
                    // next commit compiles a new one.
                    statement.setUncheckedArguments(StatementArguments())
                    var row = RowBinder(statement.sqliteStatement)
                    row.add(c.jobID)
                    row.add(c.fingerprint)
                    row.add(c.phase.rawValue)
                    row.add(c.attempts)
                    row.add(c.bytes)
                    row.add(c.expectedSize)
                    row.add(c.etag)
                    row.add(c.lastModified)
                    row.add(c.partialPath)
                    row.add(c.bootID)
                    row.add(c.finalPath)
                    row.add(c.sha256)
                    row.add(c.updatedAt)
                    row.add(c.lastError)
                    row.add(c.durableBytes)
                    row.add(c.finalModified)
                    try row.check()
                    try statement.execute()
                }
            }
        }
    }

    /// Closes the database. SQLite then copies the write-ahead log into the database file
    /// and flushes both to the disk: the run's records survive a power loss from here on
    /// (see the durability argument above).
    public func close() throws {
        try wrap { try queue.close() }
    }

    public func remove(_ jobIDs: [String]) throws {
        try wrap {
            try queue.write { db in
                for id in jobIDs { try db.execute(sql: "DELETE FROM job_checkpoint WHERE job_id = ?", arguments: [id]) }
            }
        }
    }

    public func all() throws -> [JobCheckpoint] {
        try wrap {
            try queue.read { db in
                // A cursor's rows read each column straight from the statement; `fetchAll`
                // would copy every row into values first (twice the work at start-up).
                let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.columns) FROM job_checkpoint ORDER BY job_id")
                var checkpoints: [JobCheckpoint] = []
                while let row = try rows.next() { checkpoints.append(Self.checkpoint(row)) }
                return checkpoints
            }
        }
    }

    /// The columns `checkpoint(_:)` reads, by position: a lookup by name compares
    /// lower-cased names, which cost a tenth of an up-to-date run of 2,000 jobs.
    private static let columns = "job_id, fingerprint, phase, attempts, bytes, expected_size, etag, last_modified, partial_path, "
        + "boot_id, final_path, sha256, updated_at, last_error, durable_bytes, final_modified"

    private static func checkpoint(_ row: Row) -> JobCheckpoint {
        JobCheckpoint(jobID: row[0], fingerprint: row[1], phase: JobCheckpoint.Phase(rawValue: row[2]) ?? .failed,
                      attempts: row[3], bytes: row[4], expectedSize: row[5], etag: row[6], lastModified: row[7],
                      partialPath: row[8], bootID: row[9], finalPath: row[10], sha256: row[11], updatedAt: row[12],
                      lastError: row[13], durableBytes: row[14], finalModified: row[15])
    }

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CheckpointError("state database \(path): \(Self.explain(error, path))")
        }
    }
}
