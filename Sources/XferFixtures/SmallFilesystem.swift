import Foundation

/// A tmpfs of a chosen size, mounted for one test, so a full disk gives the kernel's own
/// ENOSPC. Needs root, or `sudo` without a password (as the test scripts do); `mount`
/// returns nil where that is not possible, and the test says so.
public final class SmallFilesystem: @unchecked Sendable {
    public let path: String

    private init(path: String) { self.path = path }

    /// Mounts `bytes` of tmpfs on a new temporary folder, or nil when this process may not.
    public static func mount(bytes: Int) -> SmallFilesystem? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-tmpfs-\(UUID().uuidString)").path
        guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil else { return nil }
        guard run(["/bin/mount", "-t", "tmpfs", "-o", "size=\(bytes),uid=\(getuid()),gid=\(getgid())", "tmpfs", path]) else {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        return SmallFilesystem(path: path)
    }

    /// Grows (or shrinks) the filesystem, keeping its files.
    public func resize(bytes: Int) -> Bool {
        Self.run(["/bin/mount", "-o", "remount,size=\(bytes)", path])
    }

    /// Remounts it read-only (EROFS for every write), keeping its files.
    public func makeReadOnly() -> Bool {
        Self.run(["/bin/mount", "-o", "remount,ro", path])
    }

    deinit {
        _ = Self.run(["/bin/umount", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs a command as root: directly when we are, else through `sudo -n`.
    private static func run(_ command: [String]) -> Bool {
        let asRoot = getuid() == 0 ? command : ["/usr/bin/sudo", "-n"] + command
        return ChildProcess.run(asRoot[0], Array(asRoot.dropFirst())).status == 0
    }
}
