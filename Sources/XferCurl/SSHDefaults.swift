import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `ssh` would use when a SFTP transfer does not say: the local login name and the
/// usual key files.
///
/// libcurl has defaults of its own that differ: no user at all (the server sees an empty
/// name and refuses it) and only `~/.ssh/id_rsa` or `id_dsa`, so the `id_ed25519` key
/// `ssh-keygen` makes by default was never tried. A manifest that works with `sftp` at a
/// prompt should work here too.
public enum SSHDefaults {
    /// The key files tried, in `ssh`'s order; libcurl takes one, so the first that exists.
    static let keyNames = ["id_rsa", "id_ecdsa", "id_ed25519"]

    /// `loginName()`, looked up once (`getpwuid` is not safe to call from several threads).
    static let localLogin = loginName()

    /// The login name of the effective user (the passwd entry, else `USER`, else
    /// `LOGNAME`), as `ssh` takes it; nil when none is known.
    public static func loginName() -> String? {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name, name.pointee != 0 {
            return String(cString: name)
        }
        for variable in ["USER", "LOGNAME"] {
            if let value = getenv(variable), value.pointee != 0 { return String(cString: value) }
        }
        return nil
    }

    /// The folder `~/.ssh` is in: `HOME`, else (unset or empty) the user's home in the
    /// password database (Foundation's `NSHomeDirectory()`), as `ssh` uses; not `/root`
    /// for every user, as before.
    public static var home: String {
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
        return NSHomeDirectory()
    }

    /// The first readable `~/.ssh/id_*` key of `keyNames` under `home`, or nil.
    public static func privateKey(home: String) -> String? {
        keyNames.lazy.map { "\(home)/.ssh/\($0)" }.first { access($0, R_OK) == 0 }
    }

    /// The host (without brackets) and port (22 when not given) of an sftp URL.
    static func hostAndPort(in url: String) -> (host: String, port: Int) {
        var host = URLText.authority(of: url)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        var port = 22
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]"), let p = Int(host[host.index(after: colon)...]) {
            port = p
            host = host[..<colon]
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (String(host), port)
    }

    /// The user an sftp URL names (`sftp://user@host/…`), as written; nil when none.
    static func user(in url: String) -> String? {
        URLText.userinfo(of: url).map { String($0.prefix { $0 != ":" }) }
    }
}
