/// A libarchive failure, with its ARCHIVE_* result and libarchive's message.
public struct ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ARCHIVE_* result (`ARCHIVE_FATAL` is -30) or an errno for local I/O.
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (libarchive \(code))" }

    /// The caller's progress callback asked to stop.
    public static let cancelled = ArchiveError(code: fatal, message: "cancelled")
    /// `ARCHIVE_FATAL`, for errors raised here rather than by libarchive.
    static let fatal: Int32 = -30

    public var isCancellation: Bool { self == .cancelled }
}
