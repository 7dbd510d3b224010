import Foundation

/// Whether a finished file may be renamed onto its destination: what is there now decides.
///
/// A run writes `<to>.xferpart` and renames it over `to`. Over a regular file that is the
/// point (a new version replaces the old whole), and over a symbolic link it replaces the
/// link and leaves its target alone, as `mv` does. Over anything else it is wrong: a
/// folder makes the rename fail only after the whole download (EISDIR), and a device or a
/// named pipe would be replaced by a regular file: as root, a job writing to `/dev/null`
/// would put a file where every program's discarded output goes. So those fail the job
/// before anything is transferred, and `plan` says so.
public enum DestinationCheck {
    /// Why nothing can be renamed onto `path`, or nil when it can. One `lstat(2)`.
    /// - Parameter folderHint: what to suggest when `path` is a folder.
    public static func problem(at path: String, folderHint: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }  // nothing there (or unreadable: the rename will say)
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFLNK: return nil
        case S_IFDIR: return "\(path) is a folder; \(folderHint)"
        default: return "\(path) is \(kind(info.st_mode)): a finished file is renamed into place, which would replace it; choose another destination"
        }
    }

    /// Why an extraction cannot put its folder at `path`, or nil when it can (nothing there,
    /// or a folder). Asked before unpacking: the folder is swapped into place whole at the
    /// end, which over anything else failed only after the whole archive was unpacked. A
    /// symbolic link to a folder (`current -> releases/7`) is refused too: the swap would
    /// replace the link, not fill the folder it leads to.
    public static func folderProblem(at path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else { return nil }
        if info.st_mode & S_IFMT == S_IFLNK {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            return "\(path) is a symbolic link (to \(target)), not a folder: an extraction replaces its folder whole, "
                + "which would replace the link; name the folder it leads to as \"to\""
        }
        return "\(path) is \(kind(info.st_mode)), not a folder; remove it or choose another \"to\""
    }

    /// What a file of mode `mode` is, for a message: "a named pipe", "a character device"...
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a file"
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// The suggestion for a download whose `to` names an existing folder.
    public static let downloadHint = "end \"to\" with / to download into it"
    /// The suggestion for an archive whose `to` names an existing folder.
    public static let archiveHint = "name the archive file, such as \"to\": \"<folder>/name.tar.gz\""

    /// The failure of a job whose destination cannot take its file, or whose input (an
    /// upload's source, an archive's input) is no file: a folder in the way, a pipe, a device.
    static func failure(_ problem: String) -> JobFailure {
        JobFailure(kind: .local, code: failureCode, message: problem)
    }

    /// The code of those failures.
    static let failureCode = "not-a-file"
}
