internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

extension EasyTransfer {
    /// SFTP settings: the host key check, and who logs in with which key.
    ///
    /// Host keys are always checked against a known_hosts file. Without a key callback
    /// libcurl accepts unknown hosts, so ours accepts an exact match only. What the
    /// request leaves out is filled in as `ssh` would (`SSHDefaults`), never as libcurl
    /// would: libcurl logs in with an empty user name and looks for RSA and DSA keys only.
    func configureSSH(_ easy: UnsafeMutableRawPointer) throws(TransferError) {
        let r = request
        let home = getenv("HOME").map { String(cString: $0) } ?? "/root"
        let knownHosts = r.options.sshKnownHosts ?? home + "/.ssh/known_hosts"
        guard access(knownHosts, R_OK) == 0 else {
            throw TransferError(kind: .local, code: "known-hosts",
                                message: "cannot read the known_hosts file \(knownHosts); SFTP host keys are always checked (set sftp.knownHosts)")
        }
        try set(easy, CURLOPT_SSH_KNOWNHOSTS, knownHosts)
        try check(xb_easy_setopt_sshkey_function(easy, EasyTransfer.hostKeyCallback), "CURLOPT_SSH_KEYFUNCTION")

        var user = SSHDefaults.user(in: r.url)
        switch r.auth {
        case .basic(let name, _):
            user = name
        case .none where user == nil:
            user = SSHDefaults.localLogin
            if let user { try set(easy, CURLOPT_USERNAME, user) }
        case .none, .bearer, .netrc:
            break
        }
        let key = r.options.sshPrivateKey ?? SSHDefaults.privateKey(home: home)
        if let key {
            try set(easy, CURLOPT_SSH_PRIVATE_KEYFILE, key)
            try set(easy, CURLOPT_SSH_AUTH_TYPES, Int(XB_CURLSSH_AUTH_PUBLICKEY | XB_CURLSSH_AUTH_PASSWORD))
        }
        if let passphrase = r.options.sshKeyPassphrase { try set(easy, CURLOPT_KEYPASSWD, passphrase) }
        let who = user.map { "as \"\($0)\"" } ?? "with no user name"
        let with = key.map { " with the key \($0)" } ?? " with no key file (none of ~/.ssh/\(SSHDefaults.keyNames.joined(separator: ", ")))"
        sshLogin = who + with + ": sftp://USER@host/… names another user, sftp.privateKey another key, sftp.passphraseEnv its passphrase"
    }
}
