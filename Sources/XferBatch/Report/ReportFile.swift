import Foundation

/// Writes a report (`--report`, `--junit`) whole, or says why it could not.
///
/// The bytes go to a temporary name beside the report and are renamed into place, so a
/// reader (a CI step, a cron wrapper) never sees half a report, and a failed write leaves
/// the previous report as it was. A report reached through a symbolic link replaces the
/// file the link leads to; the link stays. A device, FIFO or socket (`/dev/stdout`,
/// `/dev/null`) is written as it is: a file renamed over it would replace the device node
/// itself, for every program on the machine (`/dev` is writable by root, as in most CI
/// containers). The reason is the system's (`Is a directory`, `Read-only file system`),
/// for a message the user can act on.
public enum ReportFile {
    /// Writes `bytes` to `path`; returns nil when written, else the reason it was not.
    public static func write(_ bytes: [UInt8], to path: String) -> String? {
        let target = destination(path)
        if target.inPlace {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return reason() }
            var failure = send(bytes, to: fd)
            if close(fd) != 0, failure == nil { failure = reason() }
            return failure
        }
        // A new file of our own: whatever was at the name (a crashed run's leftover with
        // our pid, a link planted in a shared folder) is removed, never written through.
        let temporary = PathText.sibling(of: target.path, suffix: ".xferbatch-\(getpid())")
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return reason() }
        var failure = send(bytes, to: fd)
        if close(fd) != 0, failure == nil { failure = reason() }
        if failure == nil, rename(temporary, target.path) != 0 { failure = reason() }
        if failure != nil { unlink(temporary) }
        return failure
    }

    /// Where the bytes of a report for `path` go: the file to replace (a link's target,
    /// so the link stays; `path` itself when nothing is there yet), or `path` written in
    /// place when it is a device, FIFO or socket, or a link to nothing yet.
    static func destination(_ path: String) -> (path: String, inPlace: Bool) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            // Nothing there, or a link to nothing yet: written through the link, which
            // creates its target, as a shell's `>` does (no earlier report to keep whole).
            return (path, lstat(path, &info) == 0)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return (path, true) }
        guard let resolved = realpath(path, nil) else { return (path, false) }
        defer { free(resolved) }
        return (String(cString: resolved), false)
    }

    private static func send(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return reason() }
                offset += n
            }
            return nil
        }
    }

    /// Makes sure a report can be written to `path` before a run starts: creates its
    /// folder if missing (as a run creates its output folders; `--report out/r.json` with
    /// `out/` the output folder is common), and returns why not otherwise, or nil. A cron
    /// job whose report cannot be written learns it at once, not after the night's
    /// transfers. The write at the end can still fail (a full disk); the run then says so
    /// and exits 1.
    public static func prepare(writing path: String) -> String? {
        let absolute = PathText.absolute(path)
        var info = stat()
        let exists = stat(absolute, &info) == 0
        if exists, info.st_mode & S_IFMT == S_IFDIR { return "\(path) is a folder" }
        let target = destination(absolute)
        if target.inPlace {
            // A device or FIFO must take writes; a link to nothing yet is left to the write.
            return !exists || access(absolute, W_OK) == 0 ? nil : "\(path): \(reason())"
        }
        let folder = PathText.parent(target.path)
        do {
            try Folders.create(folder)
        } catch {
            return error.message
        }
        guard access(folder, W_OK) == 0 else { return "the folder \(folder) is not writable: \(reason())" }
        return nil
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
