import Crypto
import Foundation

/// SHA-256 of a file, read in fixed blocks (memory stays flat whatever the size).
public enum FileDigest {
    /// Bytes per read, sized to stay in a core's L2 cache: the hash then reads what the
    /// copy just wrote from the cache, not from memory. 128 KiB instead of 1 MiB saved a
    /// sixth of the CPU time of hashing a 512 MiB download as it arrives (see
    /// `FileDigest.Follower`; bench/big-cpu).
    public static let blockSize = 128 << 10

    /// SHA-256 of bytes in memory (a manifest as read, for the run report).
    public static func sha256(of bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    public static func sha256(ofText text: String) -> String {
        hex(SHA256.hash(data: Array(text.utf8)))
    }

    public static func sha256(ofFileAt path: String) throws -> String {
        try sha256(ofFileAt: path, cancellation: nil)
    }

    /// The same, stopping between blocks once `cancellation` is set (a job given up while
    /// it hashes a large file does not wait for the rest of it).
    /// Only a regular file is read, and it is opened without waiting: a named pipe in the
    /// file's place (at a download's destination) was waited on forever, on the engine's
    /// thread, where it stopped every transfer before the run had started one.
    static func sha256(ofFileAt path: String, cancellation: BlockingWork.Cancellation?) throws -> String {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw JobFailure(kind: .local, code: "ENOENT", message: "cannot read \(path) to check its SHA-256")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw DestinationCheck.failure("\(path) is \(DestinationCheck.kind(info.st_mode)), not a file: it has no SHA-256 to check")
        }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, blockSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw JobFailure(kind: .local, code: "EIO", message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            if cancellation?.isCancelled == true { throw JobFailure(kind: .cancelled, code: "cancelled", message: "cancelled") }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        }
        return hex(hasher.finalize())
    }

    /// Lower-case hex of a digest, written straight into the string's storage: iterating a
    /// digest as a `Sequence` cost about 3,000 instructions per digest (bench/run-instructions),
    /// two digests per downloaded file; Foundation's `String(format:)` is slower still.
    public static func hex(_ digest: some ContiguousBytes) -> String {
        digest.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                for (i, b) in bytes.enumerated() {
                    out[2 * i] = hexDigits[Int(b >> 4)]
                    out[2 * i + 1] = hexDigits[Int(b & 0xF)]
                }
                return bytes.count * 2
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
