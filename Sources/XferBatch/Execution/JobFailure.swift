import XferCurl

/// Why an attempt (or a job) failed, as the executor and reports see it.
public struct JobFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Worth another attempt.
        case transient
        /// Another attempt would fail the same way.
        case permanent
        /// A problem on this machine (disk full, permissions).
        case local
        /// Interrupted.
        case cancelled
    }

    public var kind: Kind
    /// A short stable name (`HTTP 503`, `CURLE_COULDNT_CONNECT`, `checksum`).
    public var code: String
    /// Without control characters (`ControlCharacters`), as `TransferError.message`: it
    /// may name a file a server chose or quote the server.
    public var message: String
    public var httpStatus: Int?
    /// The server's `Retry-After`, when it sent one.
    public var retryAfter: Duration?

    public init(kind: Kind, code: String, message: String, httpStatus: Int? = nil, retryAfter: Duration? = nil) {
        self.kind = kind
        self.code = code
        self.message = ControlCharacters.spaced(message)
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code): \(message)" }

    /// The code of a checkpoint that could not be saved (the state folder's disk full,
    /// read-only or failing).
    static let stateCode = "state"

    /// Whether no further job of the run can succeed either: its progress could not be
    /// recorded, so every later job would download its file and then fail the same way
    /// (2,000 of them against a full state disk), and a re-run could not skip them.
    /// The run stops starting jobs (as with `--fail-fast`); what finished stays on disk.
    var stopsTheRun: Bool { code == Self.stateCode }

    /// A folder the job writes into could not be created: a local problem, named.
    init(_ error: Folders.CreationError) {
        self.init(kind: .local, code: "mkdir", message: error.message)
    }
}
