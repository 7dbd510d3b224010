import XferCurl

/// Reads the secrets a transfer needs from the environment, at the moment it starts.
///
/// The manifest names variables; only here do values appear, and only in the
/// `TransferRequest` handed to the engine (never in events, reports or logs).
struct SecretResolver: Sendable {
    let environment: [String: String]

    /// The variable's value. Empty counts as missing unless `mayBeEmpty` (a Basic
    /// password: some APIs take the key as the user name and no password). Why: CI systems
    /// pass a secret they withhold (a pull request from a fork) as an empty string, and an
    /// empty token sent as `Authorization: Bearer ` came back as the server's puzzling 401.
    func value(_ name: String, mayBeEmpty: Bool = false) throws(JobFailure) -> String {
        guard let value = environment[name] else {
            throw JobFailure(kind: .permanent, code: "missing-secret", message: "environment variable \(name) is not set")
        }
        if value.isEmpty, !mayBeEmpty {
            throw JobFailure(kind: .permanent, code: "missing-secret",
                             message: "environment variable \(name) is set but empty (as CI systems pass a secret they withhold)")
        }
        return value
    }

    /// The variable's value, to be sent in a header: one with a line break or another
    /// control character is refused, naming the variable (never the value). Most often a
    /// trailing newline, kept when the secret was stored from a file or from `echo`.
    func headerValue(_ name: String) throws(JobFailure) -> String {
        try lineValue(name, carriedBy: "a header")
    }

    /// The variable's value, to be sent inside a line of text (`carrier`: "a header", "an
    /// FTP login"), which a line break in it would end early; refused as `headerValue` says.
    private func lineValue(_ name: String, mayBeEmpty: Bool = false, carriedBy carrier: String) throws(JobFailure) -> String {
        let value = try value(name, mayBeEmpty: mayBeEmpty)
        guard HeaderText.canCarry(value) else {
            throw JobFailure(kind: .permanent, code: "bad-secret",
                             message: "environment variable \(name) holds a line break or another control character, which \(carrier) cannot carry "
                                 + "(a trailing newline, from a file or `echo`?)")
        }
        return value
    }

    /// The credentials `auth` names, for a transfer to `url`.
    ///
    /// An FTP login is sent as lines of text on the control connection (`USER name`, `PASS
    /// secret`), and libcurl sends what it is given: a password ending in `\r\nDELE x`
    /// gave the server a `DELE x` command of its own (seen with a server logging its
    /// commands). So over FTP the user and password are held to a header's rule. Over
    /// HTTP, Basic credentials travel base64-encoded, and an SFTP login is binary.
    func auth(_ auth: Auth?, for url: TransferURL) throws(JobFailure) -> TransferRequest.Auth {
        switch auth {
        case nil: return .none
        case .basic(let userEnv, let passwordEnv) where url.isFTP:
            return .basic(user: try lineValue(userEnv, carriedBy: "an FTP login"),
                          password: try lineValue(passwordEnv, mayBeEmpty: true, carriedBy: "an FTP login"))
        case .basic(let userEnv, let passwordEnv): return .basic(user: try value(userEnv), password: try value(passwordEnv, mayBeEmpty: true))
        case .bearer(let tokenEnv): return .bearer(token: try headerValue(tokenEnv))
        case .netrc: return .netrc(file: nil)
        }
    }

    /// The headers with their values, and the names (lower-case) of those read from the
    /// environment: secrets, which go to the URL's origin only
    /// (`TransferRequest.originBoundHeaders`).
    func headers(_ headers: [Header]) throws(JobFailure) -> (all: [(name: String, value: String)], secret: Set<String>) {
        var out: [(name: String, value: String)] = []
        var secret: Set<String> = []
        for header in headers {
            switch header.value {
            case .literal(let v): out.append((header.name, v))
            case .literalSecret(let v):
                out.append((header.name, v))
                secret.insert(header.name.lowercased())
            case .environment(let name):
                out.append((header.name, try headerValue(name)))
                secret.insert(header.name.lowercased())
            }
        }
        return (out, secret)
    }
}
