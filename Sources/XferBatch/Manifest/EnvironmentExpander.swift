/// Expands `${VAR}` and `${VAR:-default}` in manifest strings.
///
/// `$$` stands for a literal `$`; a `$` not followed by `{` or `$` is kept as is (so
/// `price$5` needs no escaping). An unset variable without a default is an error, never
/// an empty string: a URL silently missing its host is worse than a refusal.
public struct EnvironmentExpander: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        case unset(String)
        case malformed(String)
    }

    public let environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// `text` with every reference replaced; `text` itself when it has no `$` (fast path).
    public func expand(_ text: String) throws(Failure) -> String {
        try expand(text) { _, _ in }
    }

    /// `text` expanded, and the values it took from variables whose names say they hold a
    /// secret (`looksSecret`): a URL written `https://hooks.example.org/${WEBHOOK_TOKEN}`
    /// must not show the token wherever the URL is shown.
    public func expandNotingSecrets(_ text: String) throws(Failure) -> (text: String, secrets: [String]) {
        var secrets: [String] = []
        let expanded = try expand(text) { name, value in
            if Self.looksSecret(name), !value.isEmpty { secrets.append(value) }
        }
        return (expanded, secrets)
    }

    /// True for a variable name that says it holds a credential: `API_TOKEN`,
    /// `SLACK_WEBHOOK`, `DEPLOY_KEY`, `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`... A name
    /// wrongly taken for one only hides its value from what is shown.
    public static func looksSecret(_ name: some StringProtocol) -> Bool {
        let upper = name.uppercased()
        let words = ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "SIGNATURE", "APIKEY", "API_KEY",
                     "PRIVATE", "WEBHOOK", "COOKIE", "SESSION", "AUTH"]
        if words.contains(where: { upper.contains($0) }) { return true }
        return upper == "KEY" || upper.hasSuffix("_KEY") || upper.hasPrefix("KEY_") || upper.contains("_KEY_")
            || upper == "PASS" || upper.hasSuffix("_PASS") || upper == "SIG" || upper.hasSuffix("_SIG")
    }

    /// `text` expanded, telling `visit` each variable read and its value.
    ///
    /// Read by Unicode scalars, not Characters: a `$`, `{` or `}` that a neighbour joins
    /// into one Character (`${DIR}` followed by a combining accent, a `$` after U+0600) is
    /// still that sign. By Characters, `${DIR}\u{301}` was "unterminated" and `\u{600}${DIR}`
    /// was kept as written.
    private func expand(_ text: String, visit: (_ name: Substring, _ value: String) -> Void) throws(Failure) -> String {
        guard ASCII.contains(text, UInt8(ascii: "$")) else { return text }
        var out = String.UnicodeScalarView()
        var rest = text.unicodeScalars[...]
        while let dollar = rest.firstIndex(of: "$") {
            out.append(contentsOf: rest[..<dollar])
            let after = rest.index(after: dollar)
            if after < rest.endIndex, rest[after] == "$" {
                out.append("$")
                rest = rest[rest.index(after: after)...]
                continue
            }
            guard after < rest.endIndex, rest[after] == "{" else {
                out.append("$")
                rest = rest[after...]
                continue
            }
            guard let close = rest[after...].firstIndex(of: "}") else {
                throw .malformed("unterminated \"${\" (write \"$$\" for a literal \"$\")")
            }
            let body = rest[rest.index(after: after)..<close]
            let (name, fallback) = Self.split(body)
            guard Self.isValidName(name) else {
                throw .malformed("\"${\(Substring(body))}\" is not a variable reference; names are [A-Za-z_][A-Za-z0-9_]*")
            }
            if let value = environment[String(name)], !(fallback != nil && value.isEmpty) {
                out.append(contentsOf: value.unicodeScalars)
                visit(name, value)
            } else if let fallback {
                out.append(contentsOf: fallback.unicodeScalars)
            } else {
                throw .unset(String(name))
            }
            rest = rest[rest.index(after: close)...]
        }
        out.append(contentsOf: rest)
        return String(out)
    }

    /// `NAME:-default` -> (`NAME`, `default`); `NAME` -> (`NAME`, nil). At the first `:-`.
    private static func split(_ body: Substring.UnicodeScalarView) -> (name: Substring, fallback: Substring?) {
        var i = body.startIndex
        while i < body.endIndex {
            let next = body.index(after: i)
            if body[i] == ":", next < body.endIndex, body[next] == "-" {
                return (Substring(body[..<i]), Substring(body[body.index(after: next)...]))
            }
            i = next
        }
        return (Substring(body), nil)
    }

    /// True for a POSIX-style environment variable name.
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        guard let first = name.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "_")
        }
    }
}
