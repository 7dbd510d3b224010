/// What a successful attempt produced, for events and the report.
public struct AttemptResult: Sendable, Equatable {
    /// Bytes written (downloads) or sent (uploads).
    public var bytes: Int64
    /// The final path of a download, or the redacted URL an upload went to.
    public var destination: String
    /// SHA-256 of the file written or of the raw body sent.
    public var sha256: String?
    public var httpStatus: Int?
    /// True when nothing was transferred because the work was already done.
    public var upToDate = false
}
