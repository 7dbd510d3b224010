import Crypto
import Foundation

/// SHA-256 of a file, read in fixed blocks (memory stays flat whatever the size).
public enum FileDigest {
    /// Bytes per read, sized to stay in a core's L2 cache: the hash then reads what the
    /// copy just wrote from the cache, not from memory. 128 KiB instead of 1 MiB saved a
    /// sixth of the CPU time of hashing a 512 MiB download as it arrives (see
    /// `FileDigest.Follower`; bench/big-cpu).
    public static let blockSize = 128 << 10

    public static func sha256(ofText text: String) -> String {
        hex(SHA256.hash(data: Array(text.utf8)))
    }

    public static func sha256(ofFileAt path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw JobFailure(kind: .local, code: "ENOENT", message: "cannot read \(path) to check its SHA-256")
        }
        defer { close(fd) }
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
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        }
        return hex(hasher.finalize())
    }

    /// Lower-case hex of a digest (Foundation's String(format:) is slow per byte).
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
