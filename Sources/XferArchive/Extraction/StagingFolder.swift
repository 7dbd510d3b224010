#if canImport(Glibc)
import Glibc
#endif

/// Creates entries under one folder without ever following a link on the way.
///
/// Every path is walked from the folder's descriptor one component at a time with
/// `openat(O_NOFOLLOW | O_DIRECTORY)`, so a symbolic link extracted earlier (even one that
/// points inside) is never written through, and nothing can land outside the folder
/// whatever the archive's order of entries. Missing parent folders are created (0700 while
/// extracting; their final modes are applied by `finish()`: `impliedFolderMode` for a folder
/// the archive has no entry for).
final class StagingFolder {
    let root: Int32
    let path: String
    /// The parent folder of the last entry, kept open: archives list siblings together.
    private var cached: (components: ArraySlice<String>, fd: Int32)?
    /// Folders to give their archived mode and time at the end (a read-only folder must
    /// stay writable until its contents are in).
    private var folders: [(path: String, depth: Int, mode: UInt32, mtime: (seconds: Int, nanoseconds: Int)?)] = []

    /// The mode of a folder an entry's path implies but the archive does not list, as
    /// `tar -x` makes it: 0777 less the umask.
    private let impliedFolderMode: UInt32

    init(path: String, impliedFolderMode: UInt32) throws(ExtractionError) {
        self.path = path
        self.impliedFolderMode = impliedFolderMode
        root = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if root < 0 { throw Self.ioError(path, "cannot open the staging folder") }
    }

    deinit {
        if let cached { close(cached.fd) }
        close(root)
    }

    /// A descriptor of the folder holding `components.last` (owned by this object; valid
    /// until the next call). Missing folders are created when `create` is true.
    func parent(of components: [String], entry: String, create: Bool = true) throws(ExtractionError) -> Int32 {
        let folder = components.dropLast()
        if let cached, cached.components == folder { return cached.fd }
        var fd = dup(root)
        if fd < 0 { throw Self.ioError(path, "dup") }
        for (i, name) in folder.enumerated() {
            var next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, create {
                if mkdirat(fd, name, 0o700) != 0, errno != EEXIST {
                    let error = Self.ioError(path + "/" + folder.prefix(i + 1).joined(separator: "/"), "cannot create folder")
                    close(fd)
                    throw error
                }
                folders.append((folder.prefix(i + 1).joined(separator: "/"), i + 1, impliedFolderMode, nil))
                next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let failure = errno
            close(fd)
            if next < 0 {
                let prefix = folder.prefix(i + 1).joined(separator: "/")
                if failure == ELOOP || failure == ENOTDIR { throw .unsafeEntry(entry: entry, reason: .notAFolder(prefix: prefix)) }
                if failure == ENOENT { throw .unsafeEntry(entry: entry, reason: .badHardLink(target: prefix)) }
                errno = failure
                throw Self.ioError(path + "/" + prefix, "cannot open folder")
            }
            fd = next
        }
        if let cached { close(cached.fd) }
        cached = (folder, fd)
        return fd
    }

    /// Makes room for a new non-folder entry named `name` in `dir`: an earlier file or
    /// link of that name is replaced (as tar does), a folder is not.
    func clear(_ name: String, in dir: Int32, entry: String) throws(ExtractionError) {
        var info = stat()
        guard fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR { throw .unsafeEntry(entry: entry, reason: .folderConflict) }
        if unlinkat(dir, name, 0) != 0 { throw Self.ioError(path + "/" + name, "cannot replace") }
    }

    /// Creates (or keeps) a folder entry and remembers its mode and time for `finish()`.
    func makeFolder(_ components: [String], mode: UInt32, mtime: (seconds: Int, nanoseconds: Int)?, entry: String) throws(ExtractionError) {
        let dir = try parent(of: components, entry: entry)
        let name = components[components.count - 1]
        if mkdirat(dir, name, 0o700) != 0 {
            guard errno == EEXIST else { throw Self.ioError(path + "/" + components.joined(separator: "/"), "cannot create folder") }
            var info = stat()
            guard fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw .unsafeEntry(entry: entry, reason: .folderConflict)
            }
        }
        folders.append((components.joined(separator: "/"), components.count, mode, mtime))
    }

    /// Gives every folder its final mode (always owner-writable, so the tree can be
    /// removed later) and time, deepest first so that setting a time is not undone by
    /// creating something inside.
    func finish() throws(ExtractionError) {
        if let cached { close(cached.fd) }
        cached = nil
        for folder in folders.sorted(by: { $0.depth > $1.depth }) {
            // Every recorded path consists of folders this object created: no links.
            if fchmodat(root, folder.path, (folder.mode & 0o777) | 0o700, 0) != 0 {
                throw Self.ioError(path + "/" + folder.path, "cannot set the folder's mode")
            }
            if let t = folder.mtime {
                var times = [timespec(tv_sec: t.seconds, tv_nsec: t.nanoseconds), timespec(tv_sec: t.seconds, tv_nsec: t.nanoseconds)]
                _ = utimensat(root, folder.path, &times, AT_SYMLINK_NOFOLLOW)
            }
        }
    }

    static func ioError(_ path: String, _ what: String) -> ExtractionError {
        let code = errno
        return .io(path: path, code: code, message: "\(what): \(String(cString: strerror(code)))")
    }
}
