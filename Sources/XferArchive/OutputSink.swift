#if canImport(Glibc)
import Glibc
#endif

/// Where `ArchiveWriter` sends libarchive's output: a file descriptor, with every byte also
/// shown to an observer (to hash the archive as it is written).
final class OutputSink {
    private let fd: Int32
    private let path: String
    private let observe: (UnsafeRawBufferPointer) -> Void
    private(set) var written: Int64 = 0
    /// The write error, if any (libarchive only learns that the callback failed).
    private(set) var failure: ArchiveError?

    init(path: String, observe: @escaping (UnsafeRawBufferPointer) -> Void) throws(ArchiveError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw ArchiveError(code: errno, message: "cannot create \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        self.observe = observe
    }

    func close() { _ = Glibc.close(fd) }

    /// libarchive's write callback: writes everything or reports the error.
    static let write: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int = { _, client, buffer, length in
        guard let client, let buffer else { return -1 }
        let sink = Unmanaged<OutputSink>.fromOpaque(client).takeUnretainedValue()
        var done = 0
        while done < length {
            let n = Glibc.write(sink.fd, buffer + done, length - done)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                sink.failure = ArchiveError(code: code, message: "cannot write \(sink.path): \(String(cString: strerror(code)))")
                return -1
            }
            done += n
        }
        sink.observe(UnsafeRawBufferPointer(start: buffer, count: length))
        sink.written += Int64(length)
        return length
    }
}
