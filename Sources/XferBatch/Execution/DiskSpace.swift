import Foundation

/// The free-space check before a download of known size (the manifest's `size`, or the
/// response's Content-Length before its first byte is written): too little space fails
/// the job at once, with the numbers, instead of filling the disk halfway.
enum DiskSpace {
    /// Free bytes on the file system holding `folder` (its nearest existing ancestor).
    static func free(at folder: String) -> Int64? {
        var path = folder
        while !FileManager.default.fileExists(atPath: path), path != "/", !path.isEmpty {
            path = (path as NSString).deletingLastPathComponent
        }
        return (try? FileManager.default.attributesOfFileSystem(forPath: path))?[.systemFreeSize].flatMap { ($0 as? NSNumber)?.int64Value }
    }

    /// Fails with `no-space` when `folder`'s file system has less than `bytes` free.
    static func check(folder: String, needs bytes: Int64?, for destination: String) throws {
        guard let bytes, let shortfall = shortfall(folder: folder, needs: bytes, for: destination) else { return }
        throw JobFailure(kind: .permanent, code: failureCode, message: shortfall)
    }

    /// What is missing, in words, or nil when `bytes` fit (or the free space is unknown).
    static func shortfall(folder: String, needs bytes: Int64, for destination: String) -> String? {
        guard bytes > 0, let free = free(at: folder), free < bytes else { return nil }
        return "\(destination) needs \(ByteSize.format(bytes)) more, but only \(ByteSize.format(free)) is free there"
    }

    static let failureCode = "no-space"
}
