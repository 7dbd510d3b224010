import Foundation

/// A file's size and modification time, from one `stat(2)`: how a run tells that a file it
/// finished is still the one it recorded.
///
/// The size alone misses a file edited in place (the same length, other bytes); with the
/// modification time, as rsync's quick check does, a changed file is noticed without
/// reading it, and only then is its SHA-256 compared (see `DownloadStart.changed`).
public struct FileStamp: Sendable, Equatable {
    public var size: Int64
    /// Nanoseconds since 1970 (an `Int64` holds them until 2262). Compared for equality
    /// only; never through a `Double`, which would round them.
    public var modified: Int64

    public init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }

    /// The stamp of the file at `path` (links followed), or nil when there is none.
    public static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    /// The stamp of the partial file at `path`, or nil when there is none: a regular file
    /// no other name leads to, looked at without following a link (`lstat`).
    ///
    /// What `PartialFile` continues. Anything else at a partial's name (a link planted
    /// there, a FIFO, a file with another name) it removes and starts over, so its size is
    /// no offset to resume from: `plan` said `resume at` the size of the file a link led to.
    public static func ofPartial(_ path: String) -> FileStamp? {
        var info = stat()
        guard lstat(path, &info) == 0, isLonePlainFile(info) else { return nil }
        return FileStamp(info)
    }

    /// A regular file no other name leads to (one link): what a partial is.
    static func isLonePlainFile(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 1
    }

    /// The stamp of the file open as `descriptor`, or nil when it cannot be read. Cheaper
    /// than `of(_:)` on its name, which walks the path again (once per finished download).
    public static func of(descriptor: Int32) -> FileStamp? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    private init(_ info: stat) {
        self.init(size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
