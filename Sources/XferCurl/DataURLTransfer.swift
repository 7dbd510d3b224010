#if canImport(Glibc)
import Glibc
#endif

/// `data:` URLs are decoded in process; libcurl has no such scheme.
enum DataURLTransfer {
    static func perform(_ request: TransferRequest, progress: TransferProgress) throws(TransferError) -> TransferOutcome {
        guard let bytes = DataURL.decode(request.url) else {
            throw TransferError(kind: .permanent, code: "bad-data-url", message: DataURL.problem(request.url) ?? "the data: URL is malformed")
        }
        progress.update(done: 0, expected: Int64(bytes.count))
        guard case .file(let fd, let offset) = request.destination else {
            progress.update(done: Int64(bytes.count), expected: nil)
            return TransferOutcome(status: 200, bytesTransferred: Int64(bytes.count), effectiveURL: "data:", body: bytes)
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw EasyTransfer.localError(errno, "cannot write the decoded data")
            }
            written += n
        }
        progress.update(done: Int64(bytes.count), expected: nil)
        return TransferOutcome(status: 200, headers: ["content-length": "\(bytes.count)"], bytesTransferred: Int64(bytes.count),
                               effectiveURL: "data:")
    }
}
