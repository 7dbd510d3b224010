import Foundation

/// A file's size and modification time, from one `stat(2)`: how a run tells that a file it
/// finished is still the one it recorded.
///
/// The size alone misses a file edited in place (the same length, other bytes); with the
/// modification time, as rsync's quick check does, a changed file is noticed without
/// reading it, and only then is its SHA-256 compared (see `DownloadStart.changed`).
public struct FileStamp: Sendable, Equatable {
    public var size: Int64
    /// `seconds.nanoseconds` since 1970, as text: compared for equality only, and exact
    /// (a `Double` would round the nanoseconds away).
    public var modified: String

    public init(size: Int64, modified: String) {
        self.size = size
        self.modified = modified
    }

    /// The stamp of the file at `path` (links followed), or nil when there is none.
    public static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(size: Int64(info.st_size), modified: "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
    }
}
