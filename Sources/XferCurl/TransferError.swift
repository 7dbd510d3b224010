/// Why a transfer failed, classified once, here, for the retry policy to read.
///
/// Nothing above the engine re-classifies: the executor retries `.transient` and stops
/// on the rest. The original code (CURLcode or HTTP status) and libcurl's error-buffer
/// text are kept for the report.
public struct TransferError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Worth another attempt: network trouble, timeouts, 5xx, 429...
        case transient
        /// Another attempt would fail the same way: 4xx, TLS, auth, bad URL...
        case permanent
        /// A problem on this machine: disk full, permission denied, unreadable source.
        case local
        /// The caller cancelled the transfer.
        case cancelled
    }

    public var kind: Kind
    /// A short stable name (`CURLE_COULDNT_CONNECT`, `HTTP 503`, `ENOSPC`).
    public var code: String
    /// What happened, for people (libcurl's error buffer when it said something), without
    /// control characters (`ControlCharacters`): it may quote a server (an FTP reply, a
    /// redirect's target, an error page), and reaches logs, terminals and reports.
    public var message: String
    /// HTTP status of the final response, if any.
    public var httpStatus: Int?
    /// The server's `Retry-After`, when it sent one.
    public var retryAfter: Duration?
    /// Start of the error response's body (bounded), for the report.
    public var responseBody: [UInt8]

    public init(kind: Kind, code: String, message: String, httpStatus: Int? = nil, retryAfter: Duration? = nil,
                responseBody: [UInt8] = []) {
        self.kind = kind
        self.code = code
        self.message = ControlCharacters.spaced(message)
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.responseBody = responseBody
    }

    public var isTransient: Bool { kind == .transient }

    /// The code of a resumed FTP, SFTP or file download whose file changed since its
    /// partial was written (see `EasyTransfer+RemoteFileTime`).
    public static let remoteFileChanged = "remote-changed"

    /// The code of a resumed HTTP download answered 206 with bytes that do not start where
    /// its partial ends (another start, or no `Content-Range`): a server or proxy that
    /// mishandles ranges. Nothing of that body is written.
    public static let badContentRange = "bad-content-range"

    /// The code of an HTTP download answered 206 with a part that ends before the file
    /// does (`Content-Range: bytes 0-99/1000`): a server or proxy that sends a file in
    /// parts, or answers a request for all of it with a part. The bytes are the file's, and
    /// stay in the partial for the next attempt to continue; the file is not complete.
    public static let partOfTheFile = "part-of-the-file"

    /// The code of a request refused before it is sent: a header line or an FTP login
    /// holding a line break or another control character (`HeaderText`), which libcurl
    /// would send as it is. Its text is never quoted (it may be a secret).
    public static let unsendableText = "unsendable-text"

    /// The code of an FTP connection the server refused with 421 before the login: too many
    /// connections from this address (vsftpd's `max_per_ip`, pure-ftpd's `-C`), or the
    /// server closing down. libcurl reports it as a timeout ("We got a 421 - timeout").
    public static let tooManyConnections = "FTP 421"

    /// The code of a download whose file would not have the length the caller was told
    /// (`TransferRequest.maxFileSize`, the manifest's `size`).
    public static let sizeMismatch = "size-mismatch"

    /// The code of an upload whose source changed while it was sent (it ended before the
    /// size announced, or its stamp differs afterwards): worth sending again.
    public static let sourceChanged = "source-changed"

    /// Codes saying a partial cannot be continued (its file changed, or is shorter now, or
    /// the server cannot send the rest of it): the partial goes and the download starts
    /// again from byte 0.
    public static let cannotContinue: Set<String> = [
        remoteFileChanged, badContentRange, "CURLE_BAD_DOWNLOAD_RESUME", "CURLE_RANGE_ERROR", "CURLE_FTP_COULDNT_USE_REST",
    ]

    /// The code of a transfer that moved no byte for the stall timeout.
    public static let stalled = "stalled"

    /// The code of an upload whose body was all sent, then left without an answer for the
    /// answer timeout. The server has the request, so a POST is not sent again. It counts
    /// toward giving the host up whatever bytes were sent (see `UnansweredHosts`).
    public static let unanswered = "unanswered"

    /// Codes of a transfer its host left unanswered until a timeout ran out. Taken with no
    /// byte moved and no status, they count toward giving the host up for the rest of a run
    /// (`UnansweredHosts`, in the run's scheduler). Failures that come fast are not among
    /// them: a refused connection (a server restarting) or an unknown name costs its retries
    /// little, and the jobs after it may well succeed.
    public static let noAnswerInTime: Set<String> = [
        "CURLE_OPERATION_TIMEDOUT",  // no connection, or no data, within the timeouts
        stalled,  // connected, then silent for the stall timeout
    ]

    public var description: String { "\(code): \(message)" }

    static func cancelled() -> TransferError {
        TransferError(kind: .cancelled, code: "cancelled", message: "the transfer was cancelled")
    }
}
