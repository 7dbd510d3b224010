/// What a failed HTTP response's body says, as one short line for the failure message.
///
/// The status alone rarely tells a CI log what to fix: `403` is an expired pre-signed URL,
/// a token without the right scope or a blocked address, and the body says which
/// (`{"message":"Bad credentials"}`, S3's `<Code>AccessDenied</Code>`, a proxy's page
/// title). Only text is quoted: JSON and plain text as they are, XML without its tags, an
/// HTML page by its `<title>` only (the rest is markup); white space and control
/// characters become single spaces, and the line is cut at `maxLength` characters. A
/// body that only repeats the status line adds nothing and is left out.
///
/// A server may echo the request, so secrets are scrubbed first: every credential the
/// request carries (`TransferRequest.secretValues`) becomes `***`, and URLs lose their
/// userinfo and query as in every other message. A credential shorter than
/// `shortestScrubbed` could not be scrubbed without mangling the text around it, and
/// might still hide in it: then there is no excerpt at all.
public enum ErrorBodyExcerpt {
    static let maxLength = 200
    static let shortestScrubbed = 4

    /// What text of this type says, as one line, the same way (for a file's content: a
    /// login page downloaded in place of an archive, see `ContentSniff` in XferBatch).
    public static func excerpt(of text: [UInt8], contentType: String) -> String? {
        line(text, contentType: contentType, status: 0, secrets: [])
    }

    static func line(_ body: [UInt8], contentType: String?, status: Int, secrets: [String]) -> String? {
        guard !body.isEmpty, !body.contains(0), secrets.allSatisfy({ $0.count >= shortestScrubbed }) else { return nil }
        let type = String((contentType ?? "").prefix { $0 != ";" }.filter { $0 != " " }).lowercased()
        let text = String(decoding: body, as: UTF8.self)
        let words: String
        switch MediaKind(type) {
        case .plain, .json: words = text
        case .xml: words = withoutTags(text)
        case .html:
            guard let title = title(of: text) else { return nil }
            words = title
        case .other: return nil
        }
        var line = scrubbed(collapsed(words), secrets: secrets)
        // A body cut at the capture limit may end inside a character.
        while line.last == "\u{FFFD}" { line.removeLast() }
        // A page that only repeats the status line ("404 Not Found") says nothing more.
        guard !line.isEmpty, !(line.hasPrefix("\(status) ") && line.count < 40) else { return nil }
        return line.count > maxLength ? String(line.prefix(maxLength - 1)) + "…" : line
    }

    private enum MediaKind {
        case plain, json, xml, html, other

        init(_ type: String) {
            self = if type == "" || type == "text/plain" {
                .plain
            } else if type == "application/json" || type.hasSuffix("+json") {
                .json
            } else if type == "application/xml" || type == "text/xml" || type.hasSuffix("+xml") {
                .xml
            } else if type == "text/html" {
                .html
            } else {
                .other
            }
        }
    }

    /// Runs of white space and control characters (`ControlCharacters`) as one space, trimmed.
    static func collapsed(_ text: String) -> String {
        var out = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || ControlCharacters.contains(scalar) {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" ") }
            pendingSpace = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    /// Markup removed: each tag (and the `<?xml …?>` prolog) becomes a space.
    static func withoutTags(_ text: String) -> String {
        var out = ""
        var inTag = false
        for c in text {
            if c == "<" { inTag = true; out.append(" ") } else if c == ">" { inTag = false } else if !inTag { out.append(c) }
        }
        return out
    }

    /// The text of an HTML page's `<title>`, if it has one.
    static func title(of html: String) -> String? {
        let lower = html.lowercased()
        guard let open = lower.range(of: "<title"), let end = lower[open.upperBound...].firstIndex(of: ">"),
              let close = lower[end...].range(of: "</title>") else { return nil }
        let start = html.index(after: end)
        let title = collapsed(String(html[start..<close.lowerBound]))
        return title.isEmpty ? nil : title
    }

    /// Each secret replaced by `***`, the word after `Basic` or `Bearer` too (credentials
    /// libcurl took from `.netrc`, which the request does not hold), and each URL redacted
    /// (`URLText`).
    static func scrubbed(_ text: String, secrets: [String]) -> String {
        var text = text
        for secret in secrets.sorted(by: { $0.utf8.count > $1.utf8.count }) { text = replacing(secret, in: text) }
        return withoutURLSecrets(withoutAuthorizationWords(text))
    }

    /// `text` with every occurrence of `secret` replaced by `***`, found by its bytes. Found
    /// by `Character` (`String.replacing`), an echo of the secret followed by a combining
    /// mark or a joiner, or after a prepended mark, is another sequence of characters, and
    /// was quoted whole. Both are valid UTF-8, so a match starts and ends between scalars.
    static func replacing(_ secret: String, in text: String) -> String {
        let needle = Array(secret.utf8)
        let bytes = Array(text.utf8)
        guard let first = needle.first, bytes.count >= needle.count else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == first, i + needle.count <= bytes.count, bytes[i..<(i + needle.count)].elementsEqual(needle) {
                out += "***".utf8
                i += needle.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with the word after `Basic` or `Bearer` replaced by `***`. Words end at each
    /// space scalar: split by `Character`, a space followed by a combining mark is one
    /// character and no space, and the word after `Bearer` went unscrubbed.
    private static func withoutAuthorizationWords(_ text: String) -> String {
        var words = text.unicodeScalars.split(separator: " ", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        for i in words.indices.dropLast() where ["basic", "bearer"].contains(words[i].lowercased().drop { !$0.isLetter }) {
            let word = words[i + 1]
            let end = word.firstIndex { "\"',;}]".contains($0) } ?? word.endIndex
            if end != word.startIndex { words[i + 1] = "***" + word[end...] }
        }
        return words.joined(separator: " ")
    }

    private static func withoutURLSecrets(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let mark = rest.firstRange(of: "://") {
            let schemeStart = rest[..<mark.lowerBound].lastIndex { !($0.isLetter || $0.isNumber || "+-.".contains($0)) }
                .map { rest.index(after: $0) } ?? rest.startIndex
            let end = rest[mark.upperBound...].firstIndex { $0 == " " || "\"'<>`".contains($0) } ?? rest.endIndex
            out += rest[..<schemeStart] + URLText.redacted(String(rest[schemeStart..<end]))
            rest = rest[end...]
        }
        return out + rest
    }
}
