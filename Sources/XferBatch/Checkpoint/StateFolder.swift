import Foundation

/// The files a run keeps in its state folder, named in one place so that `clean` removes
/// exactly those.
///
/// A state folder holds the checkpoint database (with SQLite's `-wal`, `-shm` and
/// `-journal` files, and corrupt databases moved aside), the two segments of the done
/// journal and the lock file. `remove()` deletes those and then the folder only if nothing
/// else is left in it: `--state` may name any folder (`--state .`, a home folder), and
/// cleaning state must never cost a file xferbatch did not write.
public struct StateFolder: Sendable, Equatable {
    public var path: String

    public init(_ path: String) {
        self.path = path
    }

    /// The checkpoint database (`SQLiteCheckpointStore`).
    public var database: String { path + "/" + Self.databaseName }
    /// The done journal's first segment (`DoneJournal`; the second is `<journal>-1`).
    public var journal: String { path + "/" + Self.journalName }
    /// The lock file (`RunLock`).
    public var lock: String { path + "/lock" }

    /// Why a run could not start with this folder, or nil: it cannot be created or written
    /// in, or its disk has less room than SQLite needs to open the store. `plan` warns with
    /// it, so that a cron job's dry run finds what would stop the night's run.
    public func startProblem() -> String? {
        if let refused = Folders.writeProblem(in: path) { return "\(refused)" }
        if let free = DiskSpace.free(at: path), free < SQLiteCheckpointStore.sharedMemoryFileSize {
            return SQLiteCheckpointStore.fullDisk(free: free, holding: path)
        }
        return nil
    }

    /// The error for a state file that could not be opened: `errno` after an `open` with
    /// `O_NOFOLLOW`, which every state file gets. A symbolic link planted at a state file's
    /// name (the folder beside a manifest may be shared) would have the run write its lock
    /// text, journal lines or database over whatever the link leads to; it is refused, by
    /// name, instead. (A state folder that is itself a link is followed: `--state` on
    /// another disk may be one.)
    static func openError(_ path: String, _ err: Int32) -> CheckpointError {
        err == ELOOP
            ? CheckpointError("\(path) is a symbolic link; a state file is never opened through one, so that nothing is written where it leads: remove it")
            : CheckpointError("cannot open \(path): \(String(cString: strerror(err)))")
    }

    /// The database's files that are links (SQLite opens them itself, following links), as
    /// `openError` words it for the first, or nil.
    static func linkedDatabaseFile(_ database: String) -> CheckpointError? {
        for file in [database, database + "-wal", database + "-shm", database + "-journal"] {
            var info = stat()
            if lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { return openError(file, ELOOP) }
        }
        return nil
    }

    static let databaseName = "checkpoints.sqlite"
    static let journalName = "done.journal"

    /// Whether a run writes files of this name into a state folder.
    static func keeps(_ name: String) -> Bool {
        let database = databaseName
        return name == "lock"
            || DoneJournal.segments(of: journalName).contains(name)
            || [database, database + "-wal", database + "-shm", database + "-journal"].contains(name)
            || name.hasPrefix(database + SQLiteCheckpointStore.corruptInfix)
    }

    /// Why a state folder was not removed; `message` is a whole sentence naming it.
    public struct RemovalError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Deletes the files a run keeps here, then the folder. Files of other names stay, and
    /// so does the folder, with an error listing (up to five of) them.
    public func remove() throws(RemovalError) {
        guard let folder = opendir(path) else {
            if errno == ENOENT { return }
            throw RemovalError(message: "cannot remove the state folder \(path): \(String(cString: strerror(errno)))")
        }
        closedir(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names where Self.keeps(name) && unlink(path + "/" + name) != 0 && errno != ENOENT {
            throw RemovalError(message: "cannot remove \(path)/\(name): \(String(cString: strerror(errno)))")
        }
        let others = names.filter { !Self.keeps($0) }.sorted()
        guard others.isEmpty else {
            let listed = others.prefix(5).joined(separator: ", ") + (others.count > 5 ? ", …" : "")
            throw RemovalError(message: "kept the folder \(path): it holds files xferbatch did not write (\(listed))")
        }
        guard rmdir(path) == 0 || errno == ENOENT else {
            throw RemovalError(message: "cannot remove the state folder \(path): \(String(cString: strerror(errno)))")
        }
    }
}
