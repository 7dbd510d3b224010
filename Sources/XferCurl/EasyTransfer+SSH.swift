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
        let home = SSHDefaults.home
        let knownHosts = r.options.sshKnownHosts ?? home + "/.ssh/known_hosts"
        guard access(knownHosts, R_OK) == 0 else {
            throw TransferError(kind: .local, code: "known-hosts",
                                message: "cannot read the known_hosts file \(knownHosts); SFTP host keys are always checked (set sftp.knownHosts)")
        }
        let handed = KnownHostsFile(knownHosts)
        knownHostsCopy = handed
        try set(easy, CURLOPT_SSH_KNOWNHOSTS, handed.path)
        try check(xb_easy_setopt_sshkey_function(curl, easy, EasyTransfer.hostKeyCallback), "CURLOPT_SSH_KEYFUNCTION")
        try set(easy, CURLOPT_SSH_KEYDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
        knownHostsFile = knownHosts

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
            // libcurl tries these in its own order: the key file, a password, then the keys
            // ssh-agent holds (SSH_AUTH_SOCK), as `ssh` falls back to them too.
            try set(easy, CURLOPT_SSH_AUTH_TYPES, Int(XB_CURLSSH_AUTH_PUBLICKEY | XB_CURLSSH_AUTH_PASSWORD | XB_CURLSSH_AUTH_AGENT))
        }
        if let passphrase = r.options.sshKeyPassphrase { try set(easy, CURLOPT_KEYPASSWD, passphrase) }
        let who = user.map { "as \"\($0)\"" } ?? "with no user name"
        var with = key.map { " with the key \($0)" } ?? " with no key file (none of ~/.ssh/\(SSHDefaults.keyNames.joined(separator: ", ")))"
        with += getenv("SSH_AUTH_SOCK") == nil ? " and no ssh-agent (SSH_AUTH_SOCK is unset)" : " and the keys ssh-agent holds"
        sshLogin = who + with + ": sftp://USER@host/… names another user, sftp.privateKey another key, sftp.passphraseEnv its passphrase"
    }

    /// Accepts an SSH host key only when known_hosts has exactly this key for the host.
    /// A refusal says which of the two cases it is, and what to do: libcurl's own words,
    /// "SSL peer certificate or SSH remote key was not OK", name neither the host nor the
    /// file, and read like a TLS problem.
    static let hostKeyCallback: curl_sshkeycallback = { _, _, _, match, context in
        if match == CURLKHMATCH_OK { return Int32(CURLKHSTAT_FINE.rawValue) }
        if let context {
            let transfer = Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue()
            transfer.localFailure = transfer.hostKeyRefusal(mismatch: match == CURLKHMATCH_MISMATCH)
        }
        return Int32(CURLKHSTAT_REJECT.rawValue)
    }

    /// What to do about a key exchange the server refused when known_hosts lists an RSA
    /// key: for a host it knows by that key alone, libcurl asks for SHA-1 "ssh-rsa"
    /// signatures only (see `KnownHostsFile`). Nil for any other failure.
    func keyExchangeHint(_ code: CURLcode, _ message: String) -> String? {
        guard scheme == "sftp", code == CURLE_FAILED_INIT || code == CURLE_SSH, message.contains("Unable to exchange encryption keys"),
              knownHostsCopy?.holdsRSAKeys == true else { return nil }
        let (host, port) = SSHDefaults.hostAndPort(in: request.url)
        let scan = port == 22 ? "ssh-keyscan -t ed25519 \(host)" : "ssh-keyscan -t ed25519 -p \(port) \(host)"
        return " (if \(knownHostsFile ?? "known_hosts") knows \(host) by its RSA key only: libcurl then asks for \"ssh-rsa\" (SHA-1) "
            + "signatures, which OpenSSH refuses since 8.8; add its ed25519 key: \(scan) >> \(knownHostsFile ?? "known_hosts"))"
    }

    func hostKeyRefusal(mismatch: Bool) -> TransferError {
        let (host, port) = SSHDefaults.hostAndPort(in: request.url)
        let file = knownHostsFile ?? "known_hosts"
        if mismatch {
            return TransferError(kind: .permanent, code: "host-key-mismatch",
                                 message: "the SSH host key of \(host):\(port) is not the one \(file) holds for it: the server's key was changed, or another machine answers in its place")
        }
        // Its ed25519 key: an RSA key alone cannot be used (see `KnownHostsFile`).
        let scan = port == 22 ? "ssh-keyscan -t ed25519 \(host)" : "ssh-keyscan -t ed25519 -p \(port) \(host)"
        return TransferError(kind: .permanent, code: "host-key-unknown",
                             message: "the SSH host key of \(host):\(port) is not in \(file) (sftp.knownHosts); check the server's key, then add it (\(scan) >> \(file))")
    }
}
