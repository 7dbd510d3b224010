import Foundation

/// Writes a report (`--report`, `--junit`) whole, or says why it could not.
///
/// The bytes go to a temporary name beside the report and are renamed into place, so a
/// reader (a CI step, a cron wrapper) never sees half a report, and a failed write leaves
/// the previous report as it was. The reason is the system's (`Is a directory`,
/// `Read-only file system`), for a message the user can act on.
public enum ReportFile {
    /// Writes `bytes` to `path`; returns nil when written, else the reason it was not.
    public static func write(_ bytes: [UInt8], to path: String) -> String? {
        let temporary = PathText.sibling(of: path, suffix: ".xferbatch-\(getpid())")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return reason() }
        var failure: String?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { failure = reason(); return }
                offset += n
            }
        }
        if close(fd) != 0, failure == nil { failure = reason() }
        if failure == nil, rename(temporary, path) != 0 { failure = reason() }
        if failure != nil { unlink(temporary) }
        return failure
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
        if stat(absolute, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return "\(path) is a folder" }
        let folder = PathText.parent(absolute)
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
