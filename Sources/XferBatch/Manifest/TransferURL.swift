/// A validated source or target URL: supported scheme, no credentials, encoded exactly once.
///
/// The one user information allowed is an SFTP login name (`sftp://backup@host/…`), as
/// with `ssh`: it is not a secret. Anywhere else `user@` is refused, because an http
/// `TOKEN@host` is a credential, and so is any `user:password@`.
///
/// Normalisation percent-encodes spaces, control characters and non-ASCII bytes in the
/// path, query and fragment, and leaves existing `%XX` escapes alone, so an already
/// encoded URL is never double-encoded. `data:` URLs are kept verbatim (we decode them).
public struct TransferURL: Sendable, Hashable, CustomStringConvertible {
    /// Schemes a transfer may use.
    public static let supportedSchemes: Set<String> = ["http", "https", "ftp", "ftps", "sftp", "file", "data"]

    /// Why a URL was refused.
    public enum Problem: Error, Equatable, Sendable {
        case missingScheme
        case unsupportedScheme(String)
        case credentials
        case missingHost
        /// The port is no number from 1 to 65535.
        case badPort
        /// The host holds a byte no host name or IP literal has (shown, with its offset).
        case badHost(String)
    }

    /// Lower-cased scheme.
    public let scheme: String
    /// Lower-cased host (no port, no brackets), nil for `file:` and `data:`.
    public let host: String?
    /// Explicit port, if any.
    public let port: Int?
    /// The SFTP login name given in the URL (as written, still percent-encoded), if any.
    public let user: String?
    /// The normalised URL, as sent to the transfer engine.
    public private(set) var string: String
    /// UTF-8 offset of the path within `string` (just after the authority).
    private let pathOffset: Int
    /// Text in `string` that came from a secret-named environment variable (see
    /// `hiding(_:)`), as it appears there; `redacted` never shows it.
    public private(set) var secretTexts: [String] = []

    /// Parses and normalises `raw`. Works on UTF-8 bytes: manifests hold up to hundreds
    /// of thousands of URLs, and Character-level string handling was the planner's
    /// largest cost.
    public init(parsing raw: String) throws(Problem) {
        let bytes = Array(raw.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes[..<colon].allSatisfy({ Self.isSchemeByte($0) }) else {
            throw .missingScheme
        }
        let scheme = ASCII.lowercasedString(bytes[..<colon])
        guard Self.schemeNames.contains(scheme) else { throw .unsupportedScheme(scheme) }
        self.scheme = scheme
        if scheme == "data" {
            host = nil
            port = nil
            user = nil
            string = "data:" + String(decoding: bytes[(colon + 1)...], as: UTF8.self)
            pathOffset = string.utf8.count
            return
        }
        let slash = UInt8(ascii: "/")
        guard bytes.count >= colon + 3, bytes[colon + 1] == slash, bytes[colon + 2] == slash else { throw .missingHost }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == slash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var authority = bytes[authorityStart..<authorityEnd]
        var userBytes: ArraySlice<UInt8>? = nil
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let login = authority[..<at]
            guard scheme == "sftp", !login.isEmpty, !login.contains(UInt8(ascii: ":")) else { throw .credentials }
            userBytes = login
            authority = authority[(at + 1)...]
        }
        self.user = userBytes.map { String(decoding: $0, as: UTF8.self) }
        var hostBytes = authority
        var port: Int? = nil
        if let portColon = authority.lastIndex(of: UInt8(ascii: ":")), !authority[portColon...].contains(UInt8(ascii: "]")) {
            hostBytes = authority[..<portColon]
            let digits = authority[(portColon + 1)...]
            if !digits.isEmpty {
                guard digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let p = Int(String(decoding: digits, as: UTF8.self)), (1...65535).contains(p) else { throw .badPort }
                port = p
            }
        }
        if let problem = Self.hostProblem(hostBytes) { throw .badHost(problem) }
        if hostBytes.first == UInt8(ascii: "["), hostBytes.last == UInt8(ascii: "]") { hostBytes = hostBytes.dropFirst().dropLast() }
        if scheme != "file", hostBytes.isEmpty { throw .missingHost }
        self.host = hostBytes.isEmpty ? nil : ASCII.lowercasedString(hostBytes)
        self.port = port
        // Common case: already lower-case and nothing to encode, so the text is kept as is.
        if !bytes[..<authorityEnd].contains(where: ASCII.isUpper), userBytes?.contains(where: Self.needsEncoding) != true,
           !bytes[authorityEnd...].contains(where: Self.needsEncoding) {
            self.pathOffset = authorityEnd
            self.string = raw
            return
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        out.append(contentsOf: scheme.utf8)
        out.append(contentsOf: [UInt8(ascii: ":"), slash, slash])
        if let userBytes {  // a login name keeps its case
            Self.appendEncodedOnce(userBytes, to: &out)
            out.append(UInt8(ascii: "@"))
        }
        out.append(contentsOf: authority.lazy.map(ASCII.lowercased))
        self.pathOffset = out.count
        Self.appendEncodedOnce(bytes[authorityEnd...], to: &out)
        self.string = String(decoding: out, as: UTF8.self)
    }

    /// What makes `host` no host, or nil: a name (letters, digits, `-._~`, `%`-escapes,
    /// sub-delimiters, and UTF-8 beyond ASCII for IDN names) or an IP literal in brackets.
    /// Caught here, naming the manifest's place, instead of by libcurl once the run is
    /// under way: `http://[::1/a` had parsed as host `[:` on port 1.
    static func hostProblem(_ host: ArraySlice<UInt8>) -> String? {
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]")
        if host.first == open {
            guard host.count > 2, host.last == close,
                  host.dropFirst().dropLast().allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "%") })
            else { return "an IP literal needs its closing ] and holds only hex digits, : and ." }
            return nil
        }
        let bad: UInt8? = host.withUnsafeBufferPointer { bytes in
            for b in bytes where !isHostByte(b) { return b }
            return nil
        }
        guard let bad else { return nil }
        let shown = bad >= 0x21 && bad < 0x7F ? "\"\(Character(Unicode.Scalar(bad)))\"" : String(format: "byte 0x%02X", bad)
        return "the host holds \(shown), which no host name has"
    }

    /// A letter, digit, `-._~%!$&'()*+,;=`, or UTF-8 beyond ASCII: a bit of two masks,
    /// not a search of a list or a switch (about 20 instructions a byte): this runs for
    /// every byte of every host of a manifest.
    private static func isHostByte(_ b: UInt8) -> Bool {
        if b >= 0x80 { return true }
        let mask: UInt64 = b < 64 ? 0x2bff7ff200000000 : 0x47fffffe87fffffe
        return (mask >> (b & 63)) & 1 == 1
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    /// `supportedSchemes` to compare with one by one: seven short names compare faster
    /// than one is hashed.
    private static let schemeNames = Array(supportedSchemes)

    public var description: String { redacted }

    /// An ftp, ftps or sftp URL: a path ending with `/` names a folder (libcurl lists it),
    /// and a missing folder is refused in the server's own words.
    public var isFTPOrSFTP: Bool { scheme == "ftp" || scheme == "ftps" || scheme == "sftp" }

    /// HTTP, with or without TLS: what bearer tokens and headers are for.
    public var isHTTP: Bool { scheme == "https" || scheme == "http" }

    /// FTP, with or without TLS: its login goes as lines of text (`USER`, `PASS`).
    public var isFTP: Bool { scheme == "ftp" || scheme == "ftps" }

    /// This URL with `values`, secrets `${VAR}` expansion put into it (see
    /// `EnvironmentExpander.expandNotingSecrets`), hidden by `redacted`: a token in a
    /// webhook's path is as secret as one in its query.
    public func hiding(_ values: [String]) -> TransferURL {
        var url = self
        for value in values {
            var encoded: [UInt8] = []
            Self.appendEncodedOnce(Array(value.utf8)[...], to: &encoded)
            for text in [value, String(decoding: encoded, as: UTF8.self)] where !text.isEmpty && !url.secretTexts.contains(text) {
                if string.contains(text) { url.secretTexts.append(text) }
            }
        }
        return url
    }

    /// The URL with secret-looking query values, and text from secret variables (from the
    /// path on: a host is not a secret), replaced by `REDACTED`: safe for logs, plans and
    /// reports (pre-signed URLs carry their signature in the query).
    public var redacted: String {
        if scheme == "data" {
            // The data is left out (it may be long, or a secret); none is shown as none.
            guard let comma = string.utf8.firstIndex(of: UInt8(ascii: ",")), string.utf8.index(after: comma) != string.utf8.endIndex else {
                return string
            }
            return String(string[...comma]) + "…"
        }
        let shown = secretTexts.isEmpty ? string : maskingSecretTexts()
        return Self.redactingQueryValues(of: shown)
    }

    /// `string` with the text from secret variables replaced by `REDACTED` (but for the
    /// query values `redacted` hides too): what a job's fingerprint holds, so that a token
    /// rotated in the environment is not an edited job, and no hash of it is stored.
    public var withoutSecretTexts: String {
        secretTexts.isEmpty ? string : maskingSecretTexts()
    }

    /// `string` with each occurrence of a secret text replaced by `REDACTED`, never before
    /// the path (a whole URL from one variable keeps its scheme and host).
    private func maskingSecretTexts() -> String {
        let bytes = Array(string.utf8)
        var hidden: [Range<Int>] = []
        for secret in secretTexts {
            let needle = Array(secret.utf8)
            var start = 0
            while start + needle.count <= bytes.count {
                guard bytes[start..<(start + needle.count)].elementsEqual(needle) else { start += 1; continue }
                var lower = max(start, pathOffset)
                if lower == pathOffset, lower < bytes.count, bytes[lower] == UInt8(ascii: "/") { lower += 1 }
                if lower < start + needle.count { hidden.append(lower..<(start + needle.count)) }
                start += needle.count
            }
        }
        guard !hidden.isEmpty else { return string }
        var out: [UInt8] = []
        var next = 0
        for range in hidden.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.upperBound > next {
            if range.lowerBound >= next {
                out += bytes[next..<range.lowerBound]
                out += "REDACTED".utf8
            }
            next = range.upperBound
        }
        out += bytes[next...]
        return String(decoding: out, as: UTF8.self)
    }

    /// `url` with the values of secret-looking query parameters replaced by `REDACTED`.
    private static func redactingQueryValues(of url: String) -> String {
        guard ASCII.contains(url, UInt8(ascii: "?")) else { return url }  // common case: no copy
        let bytes = Array(url.utf8)
        guard let q = bytes.firstIndex(of: UInt8(ascii: "?")) else { return url }
        let fragmentStart = bytes[q...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        var out = Array(bytes[...q])
        let pairs = bytes[(q + 1)..<fragmentStart].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
        for (i, pair) in pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "&")) }
            if let eq = pair.firstIndex(of: UInt8(ascii: "=")), Self.isSecretParameter(pair[..<eq]) {
                out.append(contentsOf: pair[...eq])
                out.append(contentsOf: "REDACTED".utf8)
            } else {
                out.append(contentsOf: pair)
            }
        }
        out.append(contentsOf: bytes[fragmentStart...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The last non-empty path segment, percent-decoded (the default file name), or nil;
    /// nil too when it holds secret text (a file named after a token would show it).
    public var lastPathSegment: String? {
        guard scheme != "data" else { return nil }
        guard let last = Self.lastSegment(of: string, pathOffset: pathOffset) else { return nil }
        if !secretTexts.isEmpty, Self.lastSegment(of: maskingSecretTexts(), pathOffset: pathOffset) != last { return nil }
        return PercentEncoding.decode(last)
    }

    private static func lastSegment(of url: String, pathOffset: Int) -> String? {
        let path = url.utf8.dropFirst(pathOffset).prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        return path.split(separator: UInt8(ascii: "/")).last.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The local path a `file:` URL names, percent-decoded; nil for other schemes.
    public var localPath: String? {
        guard scheme == "file" else { return nil }
        let path = string.utf8.dropFirst(pathOffset).prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        return PercentEncoding.decode(String(decoding: path, as: UTF8.self))
    }

    /// True when the path ends with `/`: the URL names a folder, not a file.
    public var namesFolder: Bool {
        guard scheme != "data" else { return false }
        let path = string.utf8.dropFirst(pathOffset).prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        return path.last == UInt8(ascii: "/")
    }

    /// This folder URL with `name` appended to its path (before any query), encoded as a
    /// single segment: `/`, `?`, `#` and `%` in the name are escaped, so a file named
    /// `a?b` is never read as a query. As `curl -T file URL/` names the uploaded file.
    public func appending(fileName name: String) -> TransferURL {
        let bytes = Array(string.utf8)
        let end = bytes[pathOffset...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var segment: [UInt8] = []
        for b in name.utf8 {
            if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") || b == UInt8(ascii: "%") || b == UInt8(ascii: ";") {
                segment.append(contentsOf: PercentEncoding.escape(b))
            } else {
                segment.append(b)
            }
        }
        var encoded: [UInt8] = []
        Self.appendEncodedOnce(segment[...], to: &encoded)
        var url = self
        url.string = String(decoding: bytes[..<end] + encoded + bytes[end...], as: UTF8.self)
        return url
    }

    /// Query parameter names whose values are credentials (signatures, tokens, keys).
    static func isSecretParameter(_ name: some Collection<UInt8>) -> Bool {
        let lower = ASCII.lowercasedString(name)
        if ["sig", "signature", "token", "key", "apikey", "api_key", "access_token", "password", "passwd", "secret",
            "auth", "code", "x-amz-credential", "se", "sv"].contains(lower) { return true }
        return ASCII.containsIgnoringCase(name, "token") || ASCII.containsIgnoringCase(name, "secret")
            || ASCII.containsIgnoringCase(name, "signature") || ASCII.containsIgnoringCase(name, "password")
            || ASCII.containsIgnoringCase(name, "credential")
    }

    /// True for bytes that `appendEncodedOnce` may change (a `%` is checked there).
    private static func needsEncoding(_ b: UInt8) -> Bool {
        b <= 0x20 || b >= 0x7F || b == UInt8(ascii: "%") || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<")
            || b == UInt8(ascii: ">") || b == UInt8(ascii: "\\") || b == UInt8(ascii: "^") || b == UInt8(ascii: "`")
            || b == UInt8(ascii: "{") || b == UInt8(ascii: "|") || b == UInt8(ascii: "}")
    }

    /// Percent-encodes what must be encoded, keeping valid `%XX` escapes as they are.
    static func appendEncodedOnce(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                if i + 2 < bytes.endIndex, PercentEncoding.isHex(bytes[i + 1]), PercentEncoding.isHex(bytes[i + 2]) {
                    out.append(b)
                } else {
                    out.append(contentsOf: [UInt8(ascii: "%"), UInt8(ascii: "2"), UInt8(ascii: "5")])
                }
            } else if b <= 0x20 || b >= 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
                        || b == UInt8(ascii: "\\") || b == UInt8(ascii: "^") || b == UInt8(ascii: "`")
                        || b == UInt8(ascii: "{") || b == UInt8(ascii: "|") || b == UInt8(ascii: "}") {
                out.append(contentsOf: PercentEncoding.escape(b))
            } else {
                out.append(b)
            }
            i += 1
        }
    }
}
