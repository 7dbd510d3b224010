import Foundation

/// What a `file:` URL may name: a regular file (or a link to one), or nothing yet.
///
/// libcurl opens the path on the transfer engine's thread, which every transfer shares: a
/// named pipe nobody writes blocked that `open` forever (every other transfer stopped, and
/// Ctrl-C with them), and a device such as `/dev/zero` never ends. Such a URL fails its
/// job before anything starts, and `plan` says so, as for an upload's source.
enum LocalFileURL {
    /// Why `url` cannot be read or written as a file, or nil (not a `file:` URL, a file,
    /// or a path not there, which libcurl reports as usual).
    static func problem(_ url: TransferURL) -> String? {
        guard let path = url.localPath else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "\(path) (the file: URL) is a folder; a transfer reads or writes one file"
        default:
            return "\(path) (the file: URL) is \(DestinationCheck.kind(info.st_mode)), not a file: opening it may wait forever "
                + "and reading it may never end; write what it gives to a file first"
        }
    }
}
