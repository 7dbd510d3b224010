/// Settings of a transfer that may stand in `defaults` and in a job's `download`/`upload`.
///
/// Every field is optional here: an absent field inherits. `overridden(by:)` merges key by
/// key (headers by case-insensitive name), and the `Planner` fills what is still absent
/// from the named defaults of `RetryPolicy` and `TimeoutSettings`.
public struct TransferSettings: Sendable, Equatable {
    public var headers: [Header]
    public var auth: Auth?
    public var retry: RetrySettings
    public var timeouts: TimeoutSettings
    public var tls: TLSSettings
    public var proxy: String?
    public var sftp: SFTPSettings

    public init(headers: [Header] = [], auth: Auth? = nil, retry: RetrySettings = RetrySettings(),
                timeouts: TimeoutSettings = TimeoutSettings(), tls: TLSSettings = TLSSettings(),
                proxy: String? = nil, sftp: SFTPSettings = SFTPSettings()) {
        self.headers = headers
        self.auth = auth
        self.retry = retry
        self.timeouts = timeouts
        self.tls = tls
        self.proxy = proxy
        self.sftp = sftp
    }
}

/// A request header; its value is literal or read from the environment at run time.
public struct Header: Sendable, Equatable {
    public var name: String
    public var value: HeaderValue

    public init(name: String, value: HeaderValue) {
        self.name = name
        self.value = value
    }
}

/// A header value: literal text, or the name of an environment variable (for secrets).
public enum HeaderValue: Sendable, Equatable {
    case literal(String)
    case environment(String)
    /// Text that took the value of a secret-named variable (`"X-Api-Key": "${API_KEY}"`,
    /// see `EnvironmentExpander.looksSecret`): sent as an `environment` value is, only to
    /// the URL's own origin, and never shown.
    case literalSecret(String)
}

/// Credentials, always by environment-variable name: the manifest never holds a secret.
public enum Auth: Sendable, Equatable {
    case basic(userEnv: String, passwordEnv: String)
    case bearer(tokenEnv: String)
    /// Use `~/.netrc` for the host.
    case netrc
}

/// Retry parameters as written; absent fields inherit.
public struct RetrySettings: Sendable, Equatable {
    public var attempts: Int?
    public var initialDelay: Duration?
    public var maxDelay: Duration?
    public var maxRetryAfter: Duration?

    public init(attempts: Int? = nil, initialDelay: Duration? = nil, maxDelay: Duration? = nil, maxRetryAfter: Duration? = nil) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }
}

/// Timeouts as written; absent fields inherit.
public struct TimeoutSettings: Sendable, Equatable {
    /// Default time to establish a connection (TCP + TLS).
    public static let defaultConnect: Duration = .seconds(30)
    /// Default time without progress after which a transfer counts as stalled.
    public static let defaultStall: Duration = .seconds(60)
    /// Default wait for the server's answer once an upload's last byte is sent: longer than
    /// the stall timeout, because a server may store, hash or scan what it received before
    /// it answers, and an upload given up on there is sent again whole.
    public static let defaultAnswer: Duration = .seconds(300)

    /// Connection establishment.
    public var connect: Duration?
    /// Whole transfer; absent means no limit.
    public var total: Duration?
    /// Longest time with no bytes moving.
    public var stall: Duration?
    /// Uploads: longest wait for the server's answer after the body's last byte, which
    /// counts against this instead of `stall`. A download's wait for its answer is a stall.
    public var answer: Duration?

    public init(connect: Duration? = nil, total: Duration? = nil, stall: Duration? = nil, answer: Duration? = nil) {
        self.connect = connect
        self.total = total
        self.stall = stall
        self.answer = answer
    }
}

/// TLS settings: whom to trust, and who we are.
public struct TLSSettings: Sendable, Equatable {
    /// CA bundle file, relative to the manifest's folder.
    public var caFile: String?
    /// Turns certificate verification off; warned about in plan and run.
    public var insecure: Bool?
    /// Follows a redirect from https to plain http (refused by default: the rest of the
    /// transfer could be read and altered on the way); warned about in plan.
    public var allowHttpRedirects: Bool?
    /// `ftp://` URLs use explicit TLS (AUTH TLS on the FTP port, "FTPES"), required: the
    /// login and the data never go in clear. (`ftps://` is implicit TLS, a port of its own.)
    public var explicitFTPS: Bool?
    /// Client certificate file (PEM) for servers that require one (mutual TLS), relative
    /// to the manifest's folder; it may hold the private key too.
    public var clientCert: String?
    /// The client certificate's private key file (PEM), when not in `clientCert`.
    public var clientKey: String?
    /// The environment variable holding the client key's passphrase (never its value).
    public var keyPassphraseEnv: String?

    public init(caFile: String? = nil, insecure: Bool? = nil, allowHttpRedirects: Bool? = nil, explicitFTPS: Bool? = nil,
                clientCert: String? = nil, clientKey: String? = nil, keyPassphraseEnv: String? = nil) {
        self.caFile = caFile
        self.insecure = insecure
        self.allowHttpRedirects = allowHttpRedirects
        self.explicitFTPS = explicitFTPS
        self.clientCert = clientCert
        self.clientKey = clientKey
        self.keyPassphraseEnv = keyPassphraseEnv
    }
}

/// SFTP settings; host keys are always verified.
public struct SFTPSettings: Sendable, Equatable {
    /// known_hosts file; `~/.ssh/known_hosts` when absent.
    public var knownHosts: String?
    /// Private key file for public-key authentication; when absent, the first of
    /// `~/.ssh/id_rsa`, `id_ecdsa`, `id_ed25519` there is (as `ssh` tries them).
    public var privateKey: String?
    /// The environment variable holding the private key's passphrase (never its value).
    public var passphraseEnv: String?

    public init(knownHosts: String? = nil, privateKey: String? = nil, passphraseEnv: String? = nil) {
        self.knownHosts = knownHosts
        self.privateKey = privateKey
        self.passphraseEnv = passphraseEnv
    }
}
