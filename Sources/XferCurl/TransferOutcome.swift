/// What a finished transfer did.
public struct TransferOutcome: Sendable {
    /// HTTP status, FTP/SFTP reply code, or 0 (file:, data:).
    public var status: Int
    /// Response headers of the final response (after redirects), names lower-cased.
    public var headers: [String: String]
    /// Body bytes written to the destination (downloads) or sent (uploads).
    public var bytesTransferred: Int64
    /// Where the data came from after redirects (credentials are never part of it).
    public var effectiveURL: String
    public var timings: Timings
    /// For a resumed download: true when the server honoured the range (206, FTP REST),
    /// false when it sent the whole entity and the engine restarted the file at 0. Also
    /// true, with status 416 and no byte transferred, when the partial already held the
    /// whole entity (`Content-Range: bytes */N`, N the resume offset, and If-Range sent).
    public var resumed: Bool
    /// The response body, when the destination was `.discard` (bounded).
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], bytesTransferred: Int64 = 0, effectiveURL: String = "",
                timings: Timings = Timings(), resumed: Bool = false, body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.bytesTransferred = bytesTransferred
        self.effectiveURL = effectiveURL
        self.timings = timings
        self.resumed = resumed
        self.body = body
    }

    public var etag: String? { Self.validator("etag", in: headers) }
    public var lastModified: String? { Self.validator("last-modified", in: headers) }

    /// A validator the server sent (`etag`, `last-modified`: lower-case), or nil when it
    /// holds a control character (`HeaderText`): a validator goes back to the server in
    /// `If-Range`, `If-None-Match` or `If-Modified-Since`. Without one, an interrupted
    /// download starts over instead of resuming, and a refresh fetches the whole file:
    /// never a wrong byte.
    public static func validator(_ name: String, in headers: [String: String]) -> String? {
        headers[name].flatMap { HeaderText.canCarry($0) ? $0 : nil }
    }
    public var contentDisposition: String? { headers["content-disposition"] }
    public var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil } }

    /// Phase times from the start of the transfer, as libcurl measures them.
    public struct Timings: Sendable, Equatable {
        public var nameLookup: Duration = .zero
        public var connect: Duration = .zero
        public var tlsHandshake: Duration = .zero
        public var firstByte: Duration = .zero
        public var total: Duration = .zero

        public init() {}
    }
}
