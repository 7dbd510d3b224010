/// The settings a transfer actually runs with: defaults merged with the job's own, every
/// gap filled, every file path absolute. This is what `plan` shows and `run` uses.
public struct EffectiveTransfer: Sendable, Equatable {
    public var headers: [Header]
    public var auth: Auth?
    public var retry: RetryPolicy
    public var connectTimeout: Duration
    /// nil: no limit on the whole transfer.
    public var totalTimeout: Duration?
    public var stallTimeout: Duration
    /// Uploads only: the wait for the server's answer after the body's last byte.
    public var answerTimeout: Duration
    /// Absolute path of a CA bundle, or nil for the system's.
    public var caFile: String?
    public var insecure: Bool
    /// Follow https -> http redirects (`tls.allowHttpRedirects`).
    public var allowHttpRedirects: Bool
    /// `ftp://` with explicit TLS, required (`tls.explicitFTPS`).
    public var explicitFTPS: Bool
    /// Absolute paths of the TLS client certificate and its key (`tls.clientCert`,
    /// `tls.clientKey`); nil: none is presented.
    public var clientCert: String?
    public var clientKey: String?
    /// Environment variable holding the client key's passphrase (`tls.keyPassphraseEnv`).
    public var keyPassphraseEnv: String?
    public var proxy: String?
    /// Absolute path; nil means `~/.ssh/known_hosts`.
    public var knownHosts: String?
    /// Absolute path; nil means ssh's default keys (`SSHDefaults.privateKey`).
    public var privateKey: String?
    /// Environment variable holding `privateKey`'s passphrase.
    public var passphraseEnv: String?

    /// `settings` with gaps filled and paths resolved against `directory` (`~/` against `home`).
    public init(_ settings: TransferSettings, directory: String, home: String) {
        func file(_ p: String?) -> String? {
            p.map { PathText.resolve($0, against: directory, home: home) }
        }
        headers = settings.headers
        auth = settings.auth
        retry = RetryPolicy(settings.retry)
        connectTimeout = settings.timeouts.connect ?? TimeoutSettings.defaultConnect
        totalTimeout = settings.timeouts.total
        stallTimeout = settings.timeouts.stall ?? TimeoutSettings.defaultStall
        answerTimeout = settings.timeouts.answer ?? TimeoutSettings.defaultAnswer
        caFile = file(settings.tls.caFile)
        insecure = settings.tls.insecure ?? false
        allowHttpRedirects = settings.tls.allowHttpRedirects ?? false
        explicitFTPS = settings.tls.explicitFTPS ?? false
        clientCert = file(settings.tls.clientCert)
        clientKey = file(settings.tls.clientKey)
        keyPassphraseEnv = settings.tls.keyPassphraseEnv
        proxy = settings.proxy
        knownHosts = file(settings.sftp.knownHosts)
        privateKey = file(settings.sftp.privateKey)
        passphraseEnv = settings.sftp.passphraseEnv
    }

    /// Whether the secret variable `name` may hold an empty value: a Basic password only
    /// (see `SecretResolver.value`).
    public func mayBeEmpty(_ name: String) -> Bool {
        if case .basic(let user, let password) = auth { return name == password && name != user }
        return false
    }

    /// Whether the variable `name` is sent as a header's value (a bearer token, a header's
    /// `valueEnv`), which must hold no line break (`HeaderText.canCarry`).
    public func isSentInAHeader(_ name: String) -> Bool {
        if case .bearer(let token) = auth, token == name { return true }
        return headers.contains { if case .environment(name) = $0.value { true } else { false } }
    }

    /// Environment variables this transfer reads secrets from.
    public var secretVariables: [String] {
        var names: [String] = []
        switch auth {
        case .basic(let user, let password): names += [user, password]
        case .bearer(let token): names.append(token)
        case .netrc, nil: break
        }
        if let passphraseEnv { names.append(passphraseEnv) }
        if let keyPassphraseEnv { names.append(keyPassphraseEnv) }
        for header in headers {
            if case .environment(let name) = header.value { names.append(name) }
        }
        return names
    }
}
