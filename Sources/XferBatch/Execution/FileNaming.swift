import XferCurl

/// Decides the file name of a download whose `to` is a folder, and keeps it safe.
///
/// RFC 6266: `filename*` (RFC 8187, `UTF-8''percent-encoded`) wins over `filename`; else
/// the final URL's last path segment, percent-decoded; else the job id. The result is a
/// plain base name: no separators, no `..`, no control characters, no leading dot, and
/// not a name of a file in progress (`*.xferpart`).
public enum FileNaming {
    /// `secrets`: text of the URL that must not be shown (`TransferURL.secretTexts`); a
    /// last path segment holding some does not name the file.
    public static func name(contentDisposition: String?, finalURL: String, jobID: String, secrets: [String] = []) -> String {
        if let header = contentDisposition, let fromHeader = fileName(fromContentDisposition: header),
           let safe = sanitize(fromHeader) {
            return safe
        }
        if let url = try? TransferURL(parsing: finalURL).hiding(secrets), let last = url.lastPathSegment, let safe = sanitize(last) {
            return safe
        }
        return sanitize(jobID) ?? "download"
    }

    /// The file name a Content-Disposition header gives, if any.
    public static func fileName(fromContentDisposition header: String) -> String? {
        var plain: String?
        var extended: String?
        for part in splitParameters(header).dropFirst() {
            guard let eq = part.firstIndex(of: "=") else { continue }
            let key = part[..<eq].trimmingSpaces.lowercased()
            var value = part[part.index(after: eq)...].trimmingSpaces
            if key == "filename*" {
                // charset'language'percent-encoded
                let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3, pieces[0].lowercased() == "utf-8" { extended = PercentEncoding.decode(String(pieces[2])) }
            } else if key == "filename" {
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                    value = String(value.dropFirst().dropLast()).replacingEscapes()
                }
                plain = value
            }
        }
        return extended ?? plain
    }

    /// A safe base name, or nil when nothing usable remains.
    ///
    /// Works on Unicode scalars, never on `Character`s: a `/` or `.` followed by a
    /// combining mark, or after a "prepend" mark (U+0600), is one grapheme cluster that
    /// compares unequal to `/` or `.`, which kept a separator inside the name or a leading
    /// dot on it (a hidden file a server chose).
    public static func sanitize(_ name: String) -> String? {
        let isSeparator = { (s: Unicode.Scalar) in s == "/" || s == "\\" }
        let isBlank = { (s: Unicode.Scalar) in s == " " || s == "\t" }
        var scalars = Array(name.unicodeScalars).split(whereSeparator: isSeparator).last.map(Array.init) ?? []
        scalars.removeAll(where: ControlCharacters.contains)
        // Blanks and dots in front, in any order (" .bashrc"); blanks at the end.
        while let first = scalars.first, first == "." || isBlank(first) { scalars.removeFirst() }
        while let last = scalars.last, isBlank(last) { scalars.removeLast() }
        guard !scalars.isEmpty else { return nil }
        // A name ending in `.xferpart` is that of another download's partial, which that
        // download would cut and write into: not one a server may choose.
        let name = PathText.fittingName(String(String.UnicodeScalarView(scalars)))
        return PathText.isInProgress(name) ? nil : name
    }

    /// Splits on `;` outside quotes.
    private static func splitParameters(_ header: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for c in header {
            if escaped { current.append(c); escaped = false; continue }
            if c == "\\" && quoted { current.append(c); escaped = true; continue }
            if c == "\"" { quoted.toggle() }
            if c == ";" && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        return parts
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }

    /// `\"` -> `"` and `\\` -> `\` inside a quoted-string.
    func replacingEscapes() -> String {
        var out = ""
        var escaped = false
        for c in self {
            if escaped { out.append(c); escaped = false } else if c == "\\" { escaped = true } else { out.append(c) }
        }
        return out
    }
}
