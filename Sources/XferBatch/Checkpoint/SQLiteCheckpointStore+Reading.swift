import Foundation
import GRDB

extension SQLiteCheckpointStore {
    /// Opens an existing store for reading only, as `plan` and `status` need: the file is
    /// never created, migrated, switched to a write-ahead log or moved aside.
    ///
    /// A store an older xferbatch wrote is migrated in a copy in memory. A damaged one
    /// reads as empty, with `warning` saying so: the next run moves it aside and
    /// re-verifies the outputs. A store a newer xferbatch wrote is refused, as by a run.
    /// Like any reader of a write-ahead-logged database, SQLite may leave an empty `-wal`
    /// and a `-shm` file beside it; the next run's connection removes them on closing.
    public static func reading(path: String, busyTimeout: TimeInterval = defaultBusyTimeout) throws(CheckpointError) -> SQLiteCheckpointStore {
        do {
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(busyTimeout)
            var queue: DatabaseQueue
            do {
                queue = try DatabaseQueue(path: path, configuration: config)
                try check(queue, path)
            } catch let error as DatabaseError
                        where [.SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_FULL].contains(error.resultCode) && !hasLog(path) {
                // A folder this process may not write in (another user's state, a read-only
                // mount or cache), or a full disk (an I/O error to SQLite): SQLite's
                // read-only open of a write-ahead-logged database still creates the `-shm`
                // file. With no log beside it, the database file alone holds every commit,
                // and is read as immutable: no lock, no file made.
                queue = try DatabaseQueue(path: "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1",
                                          configuration: config)
                try check(queue, path)
            }
            if try !queue.read({ try migrations.hasCompletedMigrations($0) }) {
                let copy = try DatabaseQueue()
                try queue.backup(to: copy)
                try migrations.migrate(copy)
                queue = copy
            }
            return SQLiteCheckpointStore(path: path, queue: queue, warning: nil)
        } catch let error as CheckpointError {
            throw error
        } catch where isCorruption(error) {
            let warning = "the state database \(path) is unreadable (\(error)); shown as empty: the next run moves it aside and re-verifies the outputs"
            do {
                let empty = try DatabaseQueue()
                try migrations.migrate(empty)
                return SQLiteCheckpointStore(path: path, queue: empty, warning: warning)
            } catch {
                throw CheckpointError("cannot read the state database \(path): \(error)")
            }
        } catch {
            throw CheckpointError("cannot read the state database \(path): \(explain(error, path))")
        }
    }

    /// Whether a non-empty write-ahead log lies beside the database (a run still under way,
    /// or one killed before its connection closed): commits not yet in the database file.
    private static func hasLog(_ path: String) -> Bool {
        (DownloadStart.size(of: path + "-wal") ?? 0) > 0
    }
}
