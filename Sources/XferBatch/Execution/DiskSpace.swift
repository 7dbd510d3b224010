import Foundation

/// Free space on the file system a download writes to. Runs check it through
/// `SpaceReservations` (before a download of known size, and when a response announces
/// its length, before the first byte is written); `plan` compares it with the bytes a
/// run would fetch.
enum DiskSpace {
    /// Free bytes (for unprivileged users) on the file system holding `folder`, or its
    /// nearest existing ancestor.
    static func free(at folder: String) -> Int64? {
        fileSystem(of: folder)?.free
    }

    /// The device and free bytes of the file system holding `folder` (its nearest existing
    /// ancestor): the device tells which downloads share a disk.
    /// The walk up is `Folders.missing`'s; a file in the way gives nil (the job then
    /// fails creating its folder, saying so).
    static func fileSystem(of folder: String) -> (device: UInt64, free: Int64)? {
        guard let missing = try? Folders.missing(folder) else { return nil }
        let existing = missing.last.map(PathText.parent) ?? folder
        var info = stat()
        var fs = statvfs()
        guard stat(existing, &info) == 0, statvfs(existing, &fs) == 0 else { return nil }
        return (UInt64(info.st_dev), Int64(fs.f_bavail) * Int64(fs.f_frsize))
    }

    /// The failure code of a download the disk cannot hold.
    static let failureCode = "no-space"
}
