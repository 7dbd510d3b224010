/// One transfer for the `TransferEngine`: what to send where, and how.
///
/// Secrets here are real values (the executor reads them from the environment just
/// before the transfer); they live only in memory and are never logged. No libcurl type
/// appears in this API.
public struct TransferRequest: Sendable {
    public var url: String
    public var method: Method
    /// Extra request headers, sent in order. `Authorization` belongs in `auth`.
    public var headers: [(name: String, value: String)]
    /// Names (lower-case) of `headers` that hold secrets: sent to the URL's origin (scheme,
    /// host and port) only, never after a redirect to another one, as libcurl treats
    /// `auth`. libcurl itself protects only `Authorization` and `Cookie` and would pass any
    /// other header to whatever host a redirect names, so a request with such headers
    /// follows its redirects in the engine (see `EasyTransfer+Redirects`).
    public var originBoundHeaders: Set<String> = []
    /// Other text of this request that is a credential (what the URL took from a secret
    /// environment variable): scrubbed, as the rest of `secretValues`, from what a server
    /// sends back.
    public var secretTexts: [String] = []
    public var auth: Auth
    public var body: Body
    public var destination: Destination
    /// Resume a download at this byte offset (`Range: bytes=N-`, or REST/seek for FTP and SFTP).
    public var resumeFrom: Int64?
    /// Sent as `If-Range` with a resumed HTTP download: an ETag, else a Last-Modified date.
    /// For FTP, SFTP and file downloads, the `last-modified` their `onResponse` saw (the
    /// file's time): another time now fails the transfer with
    /// `EasyTransfer.remoteFileChanged` before a byte is written.
    public var ifRange: String?
    /// Conditional GET validators; a 304 answer is an outcome, not an error. For FTP, SFTP
    /// and file downloads, `ifModifiedSince` is compared with the file's time (the
    /// `last-modified` their `onResponse` saw): the same time ends the transfer as a 304.
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?
    /// The length the destination file must not pass, in bytes (the manifest's `size`): a
    /// body that would carry it further is stopped at that byte, as `sizeMismatch`, and
    /// nothing past it is written. A server that announces a length is refused before the
    /// body (`onResponse`); this catches one that does not (a body ended by closing the
    /// connection, or chunked), which could otherwise stream without end: 6.8 GB in 20 s
    /// from a server on loopback, for a file the manifest said was 1 MiB.
    public var maxFileSize: Int64?
    public var options: Options
    /// Called once, on the engine's thread, when a successful response's first body byte
    /// arrives and before it is written, with the status and kept headers (for FTP, SFTP
    /// and file transfers from byte 0, `content-length` is the size libcurl learned). Callers use it
    /// to commit validators (ETag) before any byte lands, so that a killed run can resume,
    /// and to refuse a body they cannot take (too large for the disk): an error returned
    /// ends the transfer with it, nothing written. Must be quick.
    public var onResponse: (@Sendable (_ status: Int, _ headers: [String: String]) -> TransferError?)?
    /// Called on the engine's thread with each run of body bytes just written to the
    /// destination file, in file order, so a caller can hash a small body while it is in
    /// the cache instead of reading the file back. Meant for requests without
    /// `resumeFrom`: with one, a 200 answer starts the file over from byte 0 and the runs
    /// seen before no longer describe it. Must be quick: it runs on the loop every
    /// transfer shares.
    public var onBodyWritten: (@Sendable (UnsafeRawBufferPointer) -> Void)?
    /// Where the engine lends the body bytes it has written, in chunks, to a reader on
    /// another thread, without a copy (see `WrittenChunks`); nothing is lent until the
    /// reader opens it.
    public var writtenChunks: WrittenChunks?

    public init(url: String, method: Method = .get, headers: [(name: String, value: String)] = [], auth: Auth = .none,
                body: Body = .none, destination: Destination = .discard, resumeFrom: Int64? = nil, ifRange: String? = nil,
                ifNoneMatch: String? = nil, ifModifiedSince: String? = nil, options: Options = Options()) {
        self.url = url
        self.method = method
        self.headers = headers
        self.auth = auth
        self.body = body
        self.destination = destination
        self.resumeFrom = resumeFrom
        self.ifRange = ifRange
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.options = options
    }

    public enum Method: String, Sendable {
        case get = "GET", head = "HEAD", put = "PUT", post = "POST"
    }

    /// Credentials; Basic and Bearer are never sent to another host after a redirect.
    public enum Auth: Sendable {
        case none
        case basic(user: String, password: String)
        case bearer(token: String)
        /// `~/.netrc` (or the file named) for the host.
        case netrc(file: String?)
    }

    /// What is uploaded; files are read as they are sent, never loaded whole.
    public enum Body: Sendable {
        case none
        /// A file's bytes as the body; Content-Type given or guessed from the extension.
        case file(path: String, contentType: String?)
        /// `multipart/form-data` with text fields and files, in order.
        case multipart(fields: [(name: String, value: String)], files: [MultipartFile])
    }

    public struct MultipartFile: Sendable {
        public var field: String
        public var path: String
        public var filename: String?
        public var contentType: String?

        public init(field: String, path: String, filename: String? = nil, contentType: String? = nil) {
            self.field = field
            self.path = path
            self.filename = filename
            self.contentType = contentType
        }
    }

    /// Where a response body goes.
    public enum Destination: Sendable {
        /// Kept in memory up to `Options.maxCapturedBody` (for uploads' answers, probes).
        case discard
        /// Written with `pwrite` to a descriptor the caller opened, starting at `offset`
        /// (`resumeFrom` when resuming). The engine never closes it.
        case file(descriptor: Int32, offset: Int64)
    }

    /// Connection, TLS and pacing settings.
    public struct Options: Sendable {
        public static let defaultMaxRedirects = 10
        public static let defaultMaxCapturedBody = 64 * 1024

        /// Connection establishment (TCP + TLS); nil: libcurl's default.
        public var connectTimeout: Duration?
        /// Whole transfer; nil: no limit.
        public var totalTimeout: Duration?
        /// No byte moving for this long fails the attempt as stalled (resolution: 1 s).
        public var stallTimeout: Duration?
        /// Uploads: once the body's last byte is sent, the wait for the server's first byte
        /// of answer counts against this instead of `stallTimeout` (resolution: 1 s); nil:
        /// against `stallTimeout` too. A server may store or hash an upload before answering.
        public var answerTimeout: Duration?
        public var maxRedirects: Int
        /// Allows following an https URL to an http one (refused by default).
        public var allowInsecureRedirects: Bool
        public var caFile: String?
        /// Turns TLS verification off (callers warn about it).
        public var insecure: Bool
        public var proxy: String?
        /// The cap this transfer shares with every other transfer naming the same one
        /// (see `SharedBandwidth`); nil: unlimited.
        public var bandwidth: SharedBandwidth?
        /// SFTP: the known_hosts file; nil: `~/.ssh/known_hosts`.
        public var sshKnownHosts: String?
        /// SFTP: the private key; nil: ssh's default keys (`SSHDefaults.privateKey`).
        public var sshPrivateKey: String?
        /// SFTP: the private key's passphrase (a secret: never logged).
        public var sshKeyPassphrase: String?
        /// TLS client certificate (PEM), for servers that ask who connects (mutual TLS); it
        /// may hold the private key too.
        public var clientCertificate: String?
        /// The client certificate's private key (PEM), when not in the certificate's file.
        public var clientKey: String?
        /// The client key's passphrase (a secret: never logged).
        public var clientKeyPassphrase: String?
        /// `ftp://`: explicit TLS (AUTH TLS), required; the transfer fails rather than log in
        /// or move data in clear (CURLOPT_USE_SSL, CURLUSESSL_ALL).
        public var requireFTPTLS = false
        /// FTP/SFTP uploads: create missing remote folders.
        public var createMissingDirectories: Bool
        /// FTP, SFTP and `file:` uploads of a file: store the body as the URL's file name plus
        /// this suffix, and give it the final name only once its last byte is stored (see
        /// `EasyTransfer+PartialUpload`), so that whoever reads the server's folder never
        /// finds part of a file under the final name. nil: straight to the final name. HTTP
        /// is left alone: there the server decides where a body goes until it is whole.
        public var partialUploadSuffix: String?
        public var userAgent: String
        /// Largest response body kept in memory (error pages, upload answers).
        public var maxCapturedBody: Int

        public init(connectTimeout: Duration? = nil, totalTimeout: Duration? = nil, stallTimeout: Duration? = nil,
                    maxRedirects: Int = Options.defaultMaxRedirects, allowInsecureRedirects: Bool = false,
                    caFile: String? = nil, insecure: Bool = false, proxy: String? = nil, bandwidth: SharedBandwidth? = nil,
                    sshKnownHosts: String? = nil, sshPrivateKey: String? = nil, createMissingDirectories: Bool = false,
                    userAgent: String = "xferbatch", maxCapturedBody: Int = Options.defaultMaxCapturedBody) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.stallTimeout = stallTimeout
            self.maxRedirects = maxRedirects
            self.allowInsecureRedirects = allowInsecureRedirects
            self.caFile = caFile
            self.insecure = insecure
            self.proxy = proxy
            self.bandwidth = bandwidth
            self.sshKnownHosts = sshKnownHosts
            self.sshPrivateKey = sshPrivateKey
            self.createMissingDirectories = createMissingDirectories
            self.userAgent = userAgent
            self.maxCapturedBody = maxCapturedBody
        }
    }
}
