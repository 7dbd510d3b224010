internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// One file an upload sends, the raw body or one file of a form, read by libcurl's read
/// callback as the request goes out: never loaded whole.
///
/// Its size is taken once, when the transfer is prepared, and announced to the server
/// (`Content-Length`, `CURLOPT_INFILESIZE`, a form part's size). Reads never go past it.
/// A file that ends before it shrank while it was sent (a log rotated, a file rewritten):
/// the transfer stops at once with `source-changed`, where libcurl would leave the server
/// waiting for bytes that never come until the stall timeout. A file that grew is sent
/// as announced; the job notices the change from the source's stamp afterwards.
///
/// The file is opened when libcurl first reads it and closed after its last byte: a form
/// of 500 files holds one descriptor at a time, not 500 for the whole request (with eight
/// such uploads at once, more than the usual limit of 1,024). One replaced between the
/// size being taken and the reading (another inode) fails as changed too.
///
/// Thread confinement: as its `EasyTransfer`, which owns it and outlives the handle.
final class UploadSource {
    let path: String
    /// Bytes announced to the server.
    let size: Int64
    /// The file the size was taken from.
    private let device: UInt, inode: UInt
    /// Open only while libcurl reads the file (-1 before and after).
    private var descriptor: Int32 = -1
    /// Where the next read starts, in bytes (moved back when libcurl rewinds for a redirect).
    private var position: Int64 = 0
    /// Why reading stopped, when it did; wins over libcurl's CURLE_ABORTED_BY_CALLBACK.
    private(set) var failure: TransferError?
    /// The transfer's bandwidth cap, asked before each read.
    private let gate: BandwidthGate?

    /// Takes the size of `path`, which must be readable. Throws a local error naming the file.
    init(path: String, gate: BandwidthGate? = nil) throws(TransferError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw EasyTransfer.localError(errno, "cannot read the size of \(path)") }
        guard access(path, R_OK) == 0 else { throw EasyTransfer.localError(errno, "cannot open the upload source \(path)") }
        self.path = path
        self.size = Int64(info.st_size)
        self.device = UInt(info.st_dev)
        self.inode = UInt(info.st_ino)
        self.gate = gate
    }

    deinit { closeFile() }

    private func closeFile() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Opens the file at `position`; false with `failure` set when it cannot, or when it is
    /// no longer the file whose size was announced.
    private func openFile() -> Bool {
        // Without waiting (`O_NONBLOCK`, which reads of a file ignore): this runs on the
        // engine's thread, and a named pipe put in the file's place would be waited on
        // there, stopping every transfer; opened at once, it fails the inode check below.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            failure = EasyTransfer.localError(errno, "cannot open the upload source \(path)")
            return false
        }
        var info = stat()
        guard fstat(fd, &info) == 0, UInt(info.st_dev) == device, UInt(info.st_ino) == inode else {
            Glibc.close(fd)
            failure = TransferError(kind: .transient, code: TransferError.sourceChanged,
                                    message: "\(path) was replaced by another file while the upload was under way; it is sent again")
            return false
        }
        if position > 0, lseek(fd, off_t(position), SEEK_SET) < 0 {
            failure = EasyTransfer.localError(errno, "cannot read the upload source \(path)")
            Glibc.close(fd)
            return false
        }
        descriptor = fd
        return true
    }

    /// The name a form part gives the file by default: its path's last component, as
    /// `curl -F name=@path` sends it. Split at `/` bytes, as the kernel does: between
    /// `Character`s, a `/` after U+0600 (a "prepend" mark) is not one of its own.
    var fileName: String {
        path.utf8.split(separator: UInt8(ascii: "/")).last.map { String(Substring($0)) } ?? path
    }

    /// The context pointer libcurl hands back to the callbacks; valid while `self` lives.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Fills `buffer` with up to `capacity` bytes: the count, 0 at the announced end, or
    /// libcurl's abort code with `failure` set.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let wanted = min(capacity, Int(clamping: size - position))
        guard wanted > 0 else { closeFile(); return 0 }
        if let gate, !gate.admitsSending() { return Int(XB_CURL_READFUNC_PAUSE) }  // released by the loop
        if descriptor < 0, !openFile() { return Int(XB_CURL_READFUNC_ABORT) }
        let n = Glibc.read(descriptor, buffer, wanted)
        if n < 0 {
            failure = EasyTransfer.localError(errno, "cannot read the upload source \(path)")
            return Int(XB_CURL_READFUNC_ABORT)
        }
        if n == 0 {
            failure = TransferError(kind: .transient, code: TransferError.sourceChanged,
                                    message: "\(path) shrank while it was being sent: it ended after \(position) of the \(size) bytes announced; it is sent again")
            return Int(XB_CURL_READFUNC_ABORT)
        }
        position += Int64(n)
        gate?.sent(n)
        if position == size { closeFile() }  // its part is sent: the descriptor is free again
        return n
    }

    /// Moves to `offset` (from `origin`, as `lseek`) when libcurl must send the body
    /// again: a 307 or 308 redirect, or an authentication round. False when it cannot.
    func seek(to offset: Int64, from origin: Int32) -> Bool {
        let target: Int64 = switch origin {
        case SEEK_SET: offset
        case SEEK_CUR: position + offset
        case SEEK_END: size + offset
        default: -1
        }
        guard target >= 0 else { return false }
        // Closed, it opens at the new position on the next read; open, it moves there.
        if descriptor >= 0, lseek(descriptor, off_t(target), SEEK_SET) < 0 { return false }
        position = target
        return true
    }

    static let readCallback: curl_read_callback = { buffer, size, count, context in
        guard let buffer, let context else { return Int(XB_CURL_READFUNC_ABORT) }
        return Unmanaged<UploadSource>.fromOpaque(context).takeUnretainedValue().read(into: buffer, capacity: size * count)
    }

    /// Without it libcurl fails a rewound upload with CURLE_SEND_FAIL_REWIND ("necessary
    /// data rewind wasn't possible").
    static let seekCallback: curl_seek_callback = { context, offset, origin in
        guard let context else { return Int32(CURL_SEEKFUNC_FAIL) }
        let moved = Unmanaged<UploadSource>.fromOpaque(context).takeUnretainedValue().seek(to: Int64(offset), from: origin)
        return moved ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
    }
}
