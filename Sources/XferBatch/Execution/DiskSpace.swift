import Foundation

/// The free-space check before a download of known size: too little space fails the job
/// at once, with the numbers, instead of filling the disk halfway.
enum DiskSpace {
    /// Free bytes on the file system holding `folder` (its nearest existing ancestor).
    static func free(at folder: String) -> Int64? {
        var path = folder
        while !FileManager.default.fileExists(atPath: path), path != "/", !path.isEmpty {
            path = (path as NSString).deletingLastPathComponent
        }
        return (try? FileManager.default.attributesOfFileSystem(forPath: path))?[.systemFreeSize].flatMap { ($0 as? NSNumber)?.int64Value }
    }

    static func check(folder: String, needs bytes: Int64?, for destination: String) throws {
        guard let bytes, bytes > 0, let free = free(at: folder), free < bytes else { return }
        throw JobFailure(kind: .permanent, code: "no-space",
                         message: "\(destination) needs \(ByteSize.format(bytes)) more, but only \(ByteSize.format(free)) is free there")
    }
}
