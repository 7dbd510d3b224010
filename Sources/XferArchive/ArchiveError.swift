/// A libarchive failure, with its ARCHIVE_* result and libarchive's message.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// The ARCHIVE_* result (`ARCHIVE_FATAL` is -30) or an errno for local I/O.
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (libarchive \(code))" }
}
