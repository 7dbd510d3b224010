internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// One transfer inside the engine: its easy handle, what its callbacks need, and the
/// continuation of the task awaiting it.
///
/// Thread confinement: created by `TransferEngine.perform` and handed through the
/// engine's inbox; from then on only the engine's loop thread touches it (callbacks run
/// inside `curl_multi_perform` on that thread), which is why it can be
/// `@unchecked Sendable` without locks. The continuation is resumed exactly once, by
/// `complete(_:)`, which then forgets it.
final class EasyTransfer: @unchecked Sendable {
    /// libcurl's receive buffer per transfer, in bytes (see `configure`).
    static let receiveBufferSize = 512 * 1024
    /// The smallest receive buffer of a transfer under a bandwidth cap: libcurl's default.
    static let smallestCappedBufferSize = 16 * 1024

    /// The receive buffer under a cap of `rate` bytes per second: a fiftieth of a second's
    /// worth, between `smallestCappedBufferSize` and `receiveBufferSize`. Each chunk is taken
    /// whole from the cap's budget, which holds a twentieth (`TokenBucket`), and libcurl
    /// keeps one while the transfer is paused. Fixed at 16 KiB (up to 12,000 pauses and
    /// releases a second at 200 MB/s), a 256 MB download under 200 MB/s took 0.84 s of CPU;
    /// sized so, 0.53 s (uncapped: 0.47 s).
    static func bufferSize(underCap rate: Int64) -> Int {
        Int(min(Int64(receiveBufferSize), max(Int64(smallestCappedBufferSize), rate / 50)))
    }

    let id: UInt64
    /// libcurl's functions (`CurlLibrary`), as the engine has them.
    let curl: UnsafePointer<xb_curl_functions>
    let request: TransferRequest
    let progress: TransferProgress
    let scheme: String
    private(set) var handle: UnsafeMutableRawPointer?
    private var continuation: CheckedContinuation<Result<TransferOutcome, TransferError>, Never>?

    /// libcurl's error message for this handle (CURLOPT_ERRORBUFFER).
    let errorBuffer: UnsafeMutablePointer<CChar>
    var headerList: UnsafeMutablePointer<curl_slist>?
    var mime: OpaquePointer?
    /// FTP and SFTP uploads stored under a temporary name: the commands renaming it.
    var postQuote: UnsafeMutablePointer<curl_slist>?
    /// Set when the body is stored under a temporary name (see `PartialUpload`).
    var partialUpload: PartialUpload?
    /// The files the request's body reads (see `UploadSource`); kept until the handle is gone.
    var uploadSources: [UploadSource] = []

    // Response state, filled by the callbacks.
    var responseHeaders: [String: String] = [:]
    /// The current response's header section has ended (its blank line came): further
    /// fields are trailers, which `receiveHeader` leaves out.
    var headerSectionEnded = false
    var bodyStarted = false
    var writesToFile = false
    var writeOffset: Int64 = 0
    var bytesWritten: Int64 = 0
    var captured: [UInt8] = []
    /// Body bytes not yet written (see `EasyTransfer+FileWrites`): the first
    /// `pendingCount` bytes of `pendingWrite`, allocated only for a body of several chunks.
    var pendingWrite: UnsafeMutableRawBufferPointer?
    var pendingCount = 0
    var sawFirstChunk = false
    /// Paused until the reader of `request.writtenChunks` gives a buffer back.
    var heldForReader = false
    /// Paused on purpose (a bandwidth cap, the digest's reader): no byte moves, and that
    /// is no stall.
    var isHeld: Bool { heldForReader || gate?.heldSince != nil }
    /// The engine whose loop runs this transfer, for the reader to wake (set when the
    /// transfer starts, if it lends chunks). Unowned and uncounted: it is only read on
    /// that loop, which keeps the engine alive, and costs a small file nothing.
    unowned(unsafe) var engine: TransferEngine?
    var resumed = false
    /// HTTP: a 206 whose part ends before the file does, and the file's length (see
    /// `acceptPart`): the transfer then ends as an incomplete one.
    var partEndsShort: (end: Int64, length: Int64)?
    /// FTP/SFTP/file: the file still has the time `ifModifiedSince` names, so its body was
    /// refused at the first byte and the outcome is a 304 (see `EasyTransfer+RemoteFileTime`).
    var notModified = false
    /// Redirects followed by the engine, and whether one left the first URL's origin
    /// (see `EasyTransfer+Redirects`).
    var redirectsFollowed = 0
    var leftOrigin = false
    /// SFTP: who logged in with which key, and what else to try, for a refused login's message.
    var sshLogin: String?
    /// SFTP: the known_hosts file the host key is checked against, for a refusal's message.
    var knownHostsFile: String?
    /// SFTP: what libcurl reads for it (see `KnownHostsFile`); kept until the transfer ends.
    var knownHostsCopy: KnownHostsFile?
    /// A failure our own callbacks detected (disk full, wrong range, stall); wins over libcurl's code.
    var localFailure: TransferError?
    /// The transfer's way through its bandwidth cap, if it has one (not for `file:`, a
    /// local copy).
    let gate: BandwidthGate?
    /// Stall detection: bytes moved at the last progress call, and when they last changed
    /// (monotonic nanoseconds).
    var lastMovedBytes: Int64 = -1
    var lastMovedAt: UInt64 = 0
    lazy var stallLimit: UInt64? = request.options.stallTimeout.map(Self.nanoseconds)
    /// Uploads: the wait for an answer after the body's last byte (see `checkStall`).
    lazy var answerLimit: UInt64? = request.options.answerTimeout.map(Self.nanoseconds)
    /// Response header bytes received so far (every protocol's replies): they count as
    /// bytes moving, and tell when an answer has begun.
    var headerBytes: Int64 = 0
    /// Uploads: `headerBytes` when the body's last byte was seen sent; nil before. While
    /// no header byte has come since, the transfer waits for its answer.
    var headerBytesWhenSent: Int64?

    init(id: UInt64, curl: UnsafePointer<xb_curl_functions>, request: TransferRequest, progress: TransferProgress,
         continuation: CheckedContinuation<Result<TransferOutcome, TransferError>, Never>) {
        self.id = id
        self.curl = curl
        self.request = request
        self.progress = progress
        self.continuation = continuation
        self.scheme = Self.scheme(of: request.url)
        self.gate = Self.canPause(scheme) ? request.options.bandwidth.map(BandwidthGate.init) : nil
        self.errorBuffer = .allocate(capacity: Int(XB_CURL_ERROR_SIZE) + 1)
        self.errorBuffer.initialize(repeating: 0, count: Int(XB_CURL_ERROR_SIZE) + 1)
    }

    var isHTTP: Bool { scheme == "http" || scheme == "https" }

    /// Whether libcurl can pause a transfer of `scheme` from its write callback. Not
    /// `file:`: it fails the transfer instead (CURLE_WRITE_ERROR, "Write callback asked for
    /// PAUSE when not supported"), so neither the bandwidth cap nor the digest's reader
    /// holds one.
    static func canPause(_ scheme: String) -> Bool { scheme != "file" }

    /// `d` in nanoseconds, at most `UInt64.max` (584 years) and at least 0: a manifest may
    /// write a timeout of centuries to mean never, and the product overflowed (a trap).
    static func nanoseconds(_ d: Duration) -> UInt64 {
        guard d > .zero else { return 0 }
        let (seconds, attoseconds) = d.components
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow || carry ? .max : total
    }

    /// A URL's scheme, lower-case: the text before the first colon.
    ///
    /// Only ASCII letters are lowered: a scheme is ASCII (RFC 3986), and any other byte
    /// leaves it matching no scheme either way. Read as bytes, not Characters, because it
    /// runs for every transfer and redirect: `prefix(while:)` and `lowercased()` took about
    /// 2,300 instructions for "http".
    static func scheme(of url: String) -> String {
        var url = url
        return url.withUTF8 { bytes in
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            return String(unsafeUninitializedCapacity: end) { name in
                for i in 0..<end { name[i] = asciiLowercased(bytes[i]) }
                return end
            }
        }
    }

    /// `b`, lowered if it is an ASCII capital letter: schemes and header names are compared
    /// byte by byte, on the loop thread.
    static func asciiLowercased(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// Takes an easy handle from `handles` and configures it. On failure nothing is left
    /// allocated beyond what `close()` frees.
    func prepare(from handles: inout EasyHandlePool) throws(TransferError) {
        guard let easy = handles.take() else {
            throw TransferError(kind: .local, code: "curl_easy_init", message: "libcurl could not create a transfer handle")
        }
        handle = easy
        try configure(easy)
    }

    /// Resumes the awaiting task; later calls do nothing (exactly-once).
    func complete(_ result: Result<TransferOutcome, TransferError>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(returning: result)
    }

    /// Writes out the body bytes still gathered, then frees the easy handle (or gives it
    /// back to `handles`) and everything attached to it. The handle must already be out of
    /// the multi handle, and the destination descriptor still open. Safe to call twice.
    func close(returningHandleTo handles: inout EasyHandlePool) {
        if let handle { handles.give(handle) }
        handle = nil
        close()
    }

    /// As `close(returningHandleTo:)`, freeing the handle.
    func close() {
        releasePendingWrite()
        if let handle { curl.pointee.curl_easy_cleanup(handle) }
        handle = nil
        if let headerList { curl.pointee.curl_slist_free_all(headerList) }
        headerList = nil
        if let mime { curl.pointee.curl_mime_free(mime) }
        mime = nil
        if let postQuote { curl.pointee.curl_slist_free_all(postQuote) }
        postQuote = nil
        uploadSources = []
        knownHostsCopy = nil
    }

    deinit {
        close()
        errorBuffer.deallocate()
    }

    /// libcurl's error-buffer text, or its generic text for `code`.
    func errorText(_ code: CURLcode) -> String {
        let text = String(cString: errorBuffer)
        if !text.isEmpty { return text }
        return curl.pointee.curl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code.rawValue)"
    }
}
