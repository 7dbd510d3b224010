#if canImport(Glibc)
import Glibc
#endif

/// The archive file: bytes are written to it and shown to an observer (to hash the archive
/// as it is written, without reading it back). Opened without following a link: the path
/// is the partial the runner made, and a link swapped in would be written through.
final class OutputSink: ByteSink {
    private let fd: Int32
    private let path: String
    private let observe: (UnsafeRawBufferPointer) -> Void
    private(set) var written: Int64 = 0

    init(path: String, observe: @escaping (UnsafeRawBufferPointer) -> Void) throws(ArchiveError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0 { throw ArchiveError(code: errno, message: "cannot create \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        self.observe = observe
    }

    func close() { _ = Glibc.close(fd) }

    override func accept(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                failure = ArchiveError(code: code, message: "cannot write \(path): \(String(cString: strerror(code)))")
                return false
            }
            done += n
        }
        observe(bytes)
        written += Int64(bytes.count)
        return true
    }
}
