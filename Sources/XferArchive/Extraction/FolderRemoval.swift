#if canImport(Glibc)
import Glibc
#endif

/// Removes a file or a whole tree without following links (a link inside is removed, never
/// what it points to). Best effort: what cannot be removed stays.
public enum FolderRemoval {
    public static func remove(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT != S_IFDIR {
            unlink(path)
            return
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 { removeContents(of: fd) }
        rmdir(path)
    }

    /// Empties the folder open as `fd` and closes it.
    private static func removeContents(of fd: Int32) {
        _ = fchmod(fd, 0o700)
        guard let dir = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(dir) }
        for entry in FolderEntries.names(in: dir) {
            let name = entry.bytes
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 { removeContents(of: child) }
                unlinkat(fd, name, AT_REMOVEDIR)
            } else {
                unlinkat(fd, name, 0)
            }
        }
    }
}
