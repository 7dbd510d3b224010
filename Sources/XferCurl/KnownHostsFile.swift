import Foundation

/// The known_hosts file handed to libcurl: the user's, or a copy with its `ssh-rsa` lines
/// after the others.
///
/// libcurl (7.88 with libssh2) asks the server only for the key type of the first
/// known_hosts line that names the host, and for an RSA key that is "ssh-rsa": SHA-1
/// signatures, which OpenSSH refuses since 8.8. The key exchange then failed ("Unable to
/// exchange encryption keys") even when the file also held the host's ed25519 key, as
/// `ssh-keyscan HOST >> known_hosts` leaves it (RSA first). With the RSA lines last, the
/// host's other key is asked for. A host known only by its RSA key still fails; the
/// failure then says why (`holdsRSAKeys`).
///
/// The copy is an unlinked temporary file, named for libcurl by `/proc/self/fd/N` and
/// closed with the transfer: nothing is left behind, and the user's file is never
/// changed. Lines keep their order within each group; none is added or removed. When
/// nothing needs moving, or the copy cannot be made, libcurl reads the file itself.
final class KnownHostsFile {
    /// What libcurl reads.
    let path: String
    /// Whether the file lists any RSA key.
    let holdsRSAKeys: Bool
    private let descriptor: Int32

    init(_ original: String) {
        // Split at `\n` bytes: a file with Windows line ends (`\r\n`, one `Character` that
        // no `"\n"` matches) was one line, and its keys were never reordered. Each line
        // keeps its `\r`, so the copy has the file's own bytes.
        let lines = (FileManager.default.contents(atPath: original)).map { data in
            data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring(String(decoding: $0, as: UTF8.self)) }
        } ?? []
        let types = lines.map(Self.keyType)
        let rsa = types.map { $0 == "ssh-rsa" }
        holdsRSAKeys = rsa.contains(true)
        // Needed only when an RSA line comes before a key of another type.
        guard let firstRSA = rsa.firstIndex(of: true), types[firstRSA...].contains(where: { $0 != nil && $0 != "ssh-rsa" }) else {
            (path, descriptor) = (original, -1)
            return
        }
        let reordered = zip(lines, rsa).filter { !$0.1 }.map(\.0) + zip(lines, rsa).filter { $0.1 }.map(\.0)
        guard let fd = Self.unlinkedTemporaryFile(), Self.write(Array(reordered.joined(separator: "\n").utf8), to: fd) else {
            (path, descriptor) = (original, -1)
            return
        }
        (path, descriptor) = ("/proc/self/fd/\(fd)", fd)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The key type a line names (`hosts ssh-rsa AAAA…`, or after a marker:
    /// `@cert-authority hosts ssh-rsa …`); nil for a comment or a blank line.
    static func keyType(_ line: Substring) -> Substring? {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let first = fields.first, !first.hasPrefix("#") else { return nil }
        return first.hasPrefix("@") ? fields.dropFirst(2).first : fields.dropFirst().first
    }

    private static func unlinkedTemporaryFile() -> Int32? {
        var template = Array((FileManager.default.temporaryDirectory.path + "/xferbatch-known-hosts-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { close(fd); return false }
            offset += n
        }
        return true
    }
}
