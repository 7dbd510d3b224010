/// Where an FTP, SFTP or `file:` upload is stored while it is partial, and how it then
/// gets its final name.
///
/// An upload in place leaves part of a file under the final name while it is sent, and
/// after a kill or a failure: a consumer polling the server's folder (a nightly pickup, a
/// deploy hook) takes it for the whole file. So the body goes to `NAME<suffix>` and is
/// renamed once the server has stored its last byte, as rclone's partial uploads do:
///
/// - FTP: `RNFR` and `RNTO` after the transfer (CURLOPT_POSTQUOTE, sent only when the store
///   succeeded), with the bare names: libcurl has changed into the file's folder (its
///   default, one `CWD` per folder). `RNTO` replaces an existing file on the usual Unix
///   servers (vsftpd, ProFTPD, Pure-FTPd call `rename`).
/// - SFTP: `rm` of the final name, allowed to fail (`*`: there may be none), then `rename`.
///   An SFTP version 3 server (OpenSSH's, the common one) refuses to rename onto an
///   existing file, and libcurl has no `posix-rename`: between the two commands the final
///   name is briefly absent, never partial.
/// - `file:`: `rename(2)` by the engine once libcurl reports the copy done.
///
/// The names are the URL's own, percent-decoded as libcurl decodes them for the transfer.
/// A stored partial left by a failed or killed attempt is replaced by the next one.
///
/// A class: only such an upload has one, and every other transfer's `EasyTransfer` carries
/// a nil reference instead of the room for its fields.
final class PartialUpload: Sendable {
    /// The URL's path as libcurl reads it (still percent-encoded), and what follows it
    /// (`;type=i` for FTP, which libcurl strips from the path itself).
    let storedURLPath: String
    /// FTP and SFTP: the commands that give the stored file its final name.
    let commands: [[UInt8]]
    /// `file:`: the stored file and the final one, decoded.
    let localRename: (from: [UInt8], to: [UInt8])?

    init(storedURLPath: String, commands: [[UInt8]], localRename: (from: [UInt8], to: [UInt8])?) {
        self.storedURLPath = storedURLPath
        self.commands = commands
        self.localRename = localRename
    }

    /// Why a URL path cannot be stored under a temporary name.
    struct Problem: Error, Equatable {
        let message: String
    }

    /// The plan for storing `encodedPath` (a URL's path, percent-encoded) of a `scheme` URL
    /// under the name plus `suffix`.
    static func plan(encodedPath: String, scheme: String, suffix: String) throws(Problem) -> PartialUpload {
        var path = encodedPath
        var type = ""
        if scheme == "ftp" || scheme == "ftps", let mark = path.range(of: ";type=") {
            type = String(path[mark.lowerBound...])
            path = String(path[..<mark.lowerBound])
        }
        let encodedName = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        guard !encodedName.isEmpty else { throw Problem(message: "the URL names no file (its path ends with /)") }
        let storedURLPath = path + suffix + type
        let decodedPath = DataURL.percentDecode(Array(path.utf8))
        if decodedPath.contains(0) { throw Problem(message: "the URL's path holds %00, which no file name can") }
        let suffixBytes = Array(suffix.utf8)
        switch scheme {
        case "ftp", "ftps":
            // A command is a line: a line break in a name would end it and start another.
            let name = DataURL.percentDecode(Array(encodedName.utf8))
            if name.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                throw Problem(message: "the file name holds a line break or another control character, which an FTP command cannot carry")
            }
            return PartialUpload(storedURLPath: storedURLPath,
                                 commands: [Array("RNFR ".utf8) + name + suffixBytes, Array("RNTO ".utf8) + name], localRename: nil)
        case "sftp":
            // libcurl reads a quoted path as written, so `/~/` (the home folder) becomes a
            // relative path, which an SFTP server resolves in the login's home folder.
            let homeRelative = decodedPath.starts(with: Array("/~/".utf8))
            let target = homeRelative ? Array(decodedPath.dropFirst(3)) : decodedPath
            return PartialUpload(storedURLPath: storedURLPath,
                                 commands: [Array("*rm ".utf8) + quoted(target), Array("rename ".utf8) + quoted(target + suffixBytes) + [0x20] + quoted(target)],
                                 localRename: nil)
        default:
            return PartialUpload(storedURLPath: storedURLPath, commands: [], localRename: (decodedPath + suffixBytes, decodedPath))
        }
    }

    /// `bytes` in double quotes, as libcurl's SFTP commands read a path: `"` and `\`
    /// escaped with `\`, every other byte as it is.
    static func quoted(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for b in bytes {
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
            out.append(b)
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}
