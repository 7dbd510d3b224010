import Crypto
import Foundation

/// SHA-256 of a file, read in fixed blocks (memory stays flat whatever the size).
public enum FileDigest {
    public static let blockSize = 1 << 20

    public static func sha256(ofText text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    public static func sha256(ofFileAt path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw JobFailure(kind: .local, code: "ENOENT", message: "cannot read \(path) to check its SHA-256")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let block = try handle.read(upToCount: blockSize), !block.isEmpty {
            hasher.update(data: block)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
