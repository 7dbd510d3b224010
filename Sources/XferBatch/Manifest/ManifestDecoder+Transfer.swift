import XferCurl

extension ManifestDecoder {
    static let transferKeys: KeySet = ["headers", "auth", "retry", "timeouts", "tls", "proxy", "sftp"]
    static let retryKeys: KeySet = ["attempts", "initialDelay", "maxDelay", "maxRetryAfter"]
    static let timeoutKeys: KeySet = ["connect", "total", "stall", "answer"]
    static let tlsKeys: KeySet = ["caFile", "insecure", "allowHttpRedirects", "explicitFTPS", "clientCert", "clientKey", "keyPassphraseEnv"]
    static let sftpKeys: KeySet = ["knownHosts", "privateKey", "passphraseEnv"]
    static let authKinds: KeySet = ["basic", "bearer", "netrc"]

    /// Header names whose literal value would be a secret in the manifest.
    static let secretHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Headers a run sets itself (lower-case names), and why one from the manifest is refused.
    /// A `Range` of its own made a download of a server that honours it (nginx) store its
    /// first 100 bytes, a 206, as the whole file, recorded done; a `Content-Length` on an
    /// upload would make the server read the body as another request.
    static let runsOwnHeaders: [String: String] = [
        "range": "it is the run's own, to continue a partial download",
        "if-range": "it is the run's own, to continue a partial download",
        "if-none-match": "it is the run's own: \"refresh\": \"conditional\" sends it from what the last download recorded",
        "if-modified-since": "it is the run's own: \"refresh\": \"conditional\" sends it from what the last download recorded",
        "content-length": "libcurl frames the body: another length would make the server read it wrong",
        "transfer-encoding": "libcurl frames the body: another framing would make the server read it wrong",
    ]

    /// Transfer settings standing in `defaults` (a whole object).
    func decodeTransferSettings(_ node: JSONNode, allowed: KeySet) -> TransferSettings? {
        guard let m = members(of: node, allowed: allowed) else { return nil }
        return decodeTransferSettings(m)
    }

    /// The transfer settings a `download` or `upload` object sets itself; nil when it sets
    /// none, as most jobs do (building and comparing empty settings cost more than the rest
    /// of such a job's decoding).
    func decodeOwnTransferSettings(_ m: ObjectMembers) -> TransferSettings? {
        guard m.members.contains(where: { Self.transferKeys.contains($0.key) }) else { return nil }
        return decodeTransferSettings(m)
    }

    /// Transfer settings mixed into a `download` or `upload` object (unknown keys already checked).
    func decodeTransferSettings(_ m: ObjectMembers) -> TransferSettings {
        var t = TransferSettings()
        t.headers = field(m, "headers") { decodeHeaders($0) } ?? []
        t.auth = field(m, "auth") { decodeAuth($0) }
        t.retry = field(m, "retry") { decodeRetry($0) } ?? RetrySettings()
        t.timeouts = field(m, "timeouts") { decodeTimeouts($0) } ?? TimeoutSettings()
        if let tls = field(m, "tls", { node -> TLSSettings? in
            guard let o = members(of: node, allowed: Self.tlsKeys) else { return nil }
            return TLSSettings(caFile: field(o, "caFile") { nonEmptyString($0) }, insecure: field(o, "insecure") { bool($0) },
                               allowHttpRedirects: field(o, "allowHttpRedirects") { bool($0) },
                               explicitFTPS: field(o, "explicitFTPS") { bool($0) },
                               clientCert: field(o, "clientCert") { nonEmptyString($0) }, clientKey: field(o, "clientKey") { nonEmptyString($0) },
                               keyPassphraseEnv: field(o, "keyPassphraseEnv") { envName($0) })
        }) { t.tls = tls }
        t.proxy = field(m, "proxy") { node -> String? in
            guard let text = nonEmptyString(node) else { return nil }
            do throws(TransferURL.Problem) {
                let url = try TransferURL(parsing: text)
                guard ["http", "https"].contains(url.scheme) || url.scheme.hasPrefix("socks") else {
                    report("a proxy URL must be http or https", at: node.offset)
                    return nil
                }
                return url.string
            } catch .credentials {
                // "auth" would send them to the server, not the proxy: name what works.
                report("credentials in a proxy URL are refused, because they would reach logs and reports; give the proxy with them in the https_proxy (or http_proxy) environment variable instead, which libcurl reads and xferbatch never shows, and leave \"proxy\" out", at: node.offset)
                return nil
            } catch {
                report("proxy: " + Self.message(for: error), at: node.offset)
                return nil
            }
        }
        if let sftp = field(m, "sftp", { node -> SFTPSettings? in
            guard let o = members(of: node, allowed: Self.sftpKeys) else { return nil }
            return SFTPSettings(knownHosts: field(o, "knownHosts") { nonEmptyString($0) },
                                privateKey: field(o, "privateKey") { nonEmptyString($0) },
                                passphraseEnv: field(o, "passphraseEnv") { envName($0) })
        }) { t.sftp = sftp }
        return t
    }

    func decodeHeaders(_ node: JSONNode) -> [Header]? {
        guard case .object(let members) = node.value else {
            report("expected an object of header names to values, found \(node.value.typeName)", at: node.offset)
            return nil
        }
        var headers: [Header] = []
        for member in members {
            within(member.key) {
                guard Self.isToken(member.key) else {
                    report("\"\(member.key)\" is not a valid header name", at: member.keyOffset)
                    return
                }
                if let why = Self.runsOwnHeaders[member.key.lowercased()] {
                    report("a \(member.key) header cannot be set: \(why)", at: member.keyOffset)
                    return
                }
                switch member.value.value {
                case .string:
                    if Self.secretHeaderNames.contains(member.key.lowercased()) {
                        report("a literal \(member.key) header would put a secret in the manifest; use \"auth\" or { \"valueEnv\": \"NAME\" }", at: member.value.offset)
                        return
                    }
                    guard let (value, secrets) = stringNotingSecrets(member.value) else { return }
                    if !HeaderText.canCarry(value) {
                        report("a header value must not contain line breaks or other control characters", at: member.value.offset)
                        return
                    }
                    headers.append(Header(name: member.key, value: secrets.isEmpty ? .literal(value) : .literalSecret(value)))
                case .object:
                    guard let o = self.members(of: member.value, allowed: ["valueEnv"]),
                          let name = field(o, "valueEnv", required: true, { envName($0) }) else { return }
                    headers.append(Header(name: member.key, value: .environment(name)))
                default:
                    report("expected a string or { \"valueEnv\": \"NAME\" }, found \(member.value.value.typeName)", at: member.value.offset)
                }
            }
        }
        return headers
    }

    func decodeAuth(_ node: JSONNode) -> Auth? {
        guard let m = members(of: node, allowed: Self.authKinds) else { return nil }
        let kinds = Self.authKinds.names.filter { m.has($0) }
        guard kinds.count == 1 else {
            report("auth needs exactly one of \"basic\", \"bearer\" or \"netrc\"", at: node.offset)
            return nil
        }
        switch kinds[0] {
        case "basic":
            return field(m, "basic") { node -> Auth? in
                guard let o = members(of: node, allowed: ["userEnv", "passwordEnv"]) else { return nil }
                let user = field(o, "userEnv", required: true) { envName($0) }
                let password = field(o, "passwordEnv", required: true) { envName($0) }
                guard let user, let password else { return nil }
                return .basic(userEnv: user, passwordEnv: password)
            }
        case "bearer":
            return field(m, "bearer") { node -> Auth? in
                guard let o = members(of: node, allowed: ["tokenEnv"]) else { return nil }
                return field(o, "tokenEnv", required: true) { envName($0) }.map { .bearer(tokenEnv: $0) }
            }
        default:
            return field(m, "netrc") { node -> Auth? in
                guard let on = bool(node) else { return nil }
                if !on { report("write \"netrc\": true, or leave auth out", at: node.offset) }
                return on ? .netrc : nil
            }
        }
    }

    /// The name of an environment variable holding a secret (never its value).
    func envName(_ node: JSONNode) -> String? {
        guard let name = rawString(node) else { return nil }
        guard EnvironmentExpander.isValidName(name) else {
            report("\"\(name)\" is not an environment variable name; secrets are given by the name of the variable that holds them", at: node.offset)
            return nil
        }
        return name
    }

    func decodeRetry(_ node: JSONNode) -> RetrySettings? {
        guard let m = members(of: node, allowed: Self.retryKeys) else { return nil }
        let r = RetrySettings(
            attempts: field(m, "attempts") { int($0, in: 1...1000) },
            initialDelay: field(m, "initialDelay") { duration($0) },
            maxDelay: field(m, "maxDelay") { duration($0) },
            maxRetryAfter: field(m, "maxRetryAfter") { duration($0) })
        if let a = r.initialDelay, let b = r.maxDelay, a > b {
            within("maxDelay") { report("maxDelay (\(DurationText.format(b))) is shorter than initialDelay (\(DurationText.format(a)))", at: m["maxDelay"]?.value.offset) }
        }
        return r
    }

    func decodeTimeouts(_ node: JSONNode) -> TimeoutSettings? {
        guard let m = members(of: node, allowed: Self.timeoutKeys) else { return nil }
        func positive(_ node: JSONNode) -> Duration? {
            guard let d = duration(node) else { return nil }
            if d == .zero { report("a timeout must be longer than 0", at: node.offset); return nil }
            return d
        }
        return TimeoutSettings(connect: field(m, "connect") { positive($0) },
                               total: field(m, "total") { positive($0) },
                               stall: field(m, "stall") { positive($0) },
                               answer: field(m, "answer") { positive($0) })
    }

    /// RFC 9110 token characters.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && ASCII.allSatisfy(name) { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}
