/// A validated source or target URL: supported scheme, no credentials, encoded exactly once.
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
    }

    /// Lower-cased scheme.
    public let scheme: String
    /// Lower-cased host (no port, no brackets), nil for `file:` and `data:`.
    public let host: String?
    /// Explicit port, if any.
    public let port: Int?
    /// The normalised URL, as sent to the transfer engine.
    public let string: String
    /// Byte range of the path within `string` (after the authority).
    private let pathStart: String.Index

    public init(parsing raw: String) throws(Problem) {
        guard let colon = raw.firstIndex(of: ":"), colon != raw.startIndex,
              raw[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            throw .missingScheme
        }
        let scheme = raw[..<colon].lowercased()
        guard Self.supportedSchemes.contains(scheme) else { throw .unsupportedScheme(scheme) }
        self.scheme = scheme
        let rest = raw[raw.index(after: colon)...]
        if scheme == "data" {
            host = nil
            port = nil
            string = "data:" + rest
            pathStart = string.endIndex
            return
        }
        guard rest.hasPrefix("//") else {
            if scheme == "file" { throw .missingHost }
            throw .missingHost
        }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        if authority.contains("@") { throw .credentials }
        var hostPart = Substring(authority)
        var port: Int? = nil
        if let portColon = authority.lastIndex(of: ":"), !authority[portColon...].contains("]") {
            hostPart = authority[..<portColon]
            let digits = authority[authority.index(after: portColon)...]
            if !digits.isEmpty {
                guard let p = Int(digits), (1...65535).contains(p) else { throw .missingHost }
                port = p
            }
        }
        if hostPart.hasPrefix("["), hostPart.hasSuffix("]") { hostPart = hostPart.dropFirst().dropLast() }
        if scheme != "file", hostPart.isEmpty { throw .missingHost }
        self.host = hostPart.isEmpty ? nil : hostPart.lowercased()
        self.port = port
        let prefix = scheme + "://" + authority.lowercased()
        let encoded = Self.encodeOnce(afterSlashes[authorityEnd...])
        let full = prefix + encoded
        self.string = full
        self.pathStart = full.index(full.startIndex, offsetBy: prefix.count)
    }

    public var description: String { redacted }

    /// `host:port` used to apply the per-host limit (`file`/`data` share one local bucket).
    public var hostKey: String {
        guard let host else { return "local" }
        return port.map { "\(host):\($0)" } ?? host
    }

    /// The URL with secret-looking query values replaced by `REDACTED`, safe for logs,
    /// plans and reports (pre-signed URLs carry their signature in the query).
    public var redacted: String {
        if scheme == "data" {
            let header = string.prefix(while: { $0 != "," })
            return header.count < string.count ? header + ",…" : string
        }
        guard let q = string.firstIndex(of: "?") else { return string }
        let fragmentStart = string[q...].firstIndex(of: "#") ?? string.endIndex
        let query = string[string.index(after: q)..<fragmentStart]
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<eq].lowercased()
            return Self.isSecretParameter(name) ? pair[..<eq] + "=REDACTED" : String(pair)
        }
        return string[...q] + parts.joined(separator: "&") + string[fragmentStart...]
    }

    /// The last non-empty path segment, percent-decoded (the default file name), or nil.
    public var lastPathSegment: String? {
        guard scheme != "data" else { return nil }
        let path = string[pathStart...].prefix(while: { $0 != "?" && $0 != "#" })
        guard let last = path.split(separator: "/").last else { return nil }
        return PercentEncoding.decode(String(last))
    }

    static func isSecretParameter(_ lowerName: String) -> Bool {
        let exact: Set<String> = ["sig", "signature", "token", "key", "apikey", "api_key", "access_token", "password",
                                  "passwd", "secret", "auth", "code", "x-amz-signature", "x-amz-credential",
                                  "x-amz-security-token", "x-goog-signature", "x-goog-credential", "se", "sv"]
        if exact.contains(lowerName) { return true }
        return ["token", "secret", "signature", "password", "credential"].contains { lowerName.contains($0) }
    }

    /// Percent-encodes what must be encoded, keeping valid `%XX` escapes as they are.
    static func encodeOnce(_ text: Substring) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                if i + 2 < bytes.count, PercentEncoding.isHex(bytes[i + 1]), PercentEncoding.isHex(bytes[i + 2]) {
                    out.append(b)
                } else {
                    out.append(contentsOf: Array("%25".utf8))
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
        return String(decoding: out, as: UTF8.self)
    }
}
