import XferCurl

/// What a file that should have been an archive holds instead, when it is text.
///
/// Why: a CI artifact URL with a wrong or expired token often answers 200 with a login
/// page, and the extraction after it failed with libarchive's "Unrecognized archive
/// format", which says nothing about the cause. Told from the content, since the file's
/// Content-Type is gone by then.
enum ArchiveLookalike {
    /// A phrase for a failure message (`a web page titled "Sign in"`, `text: {"message":
    /// "Bad credentials"}`, `an empty file`), or nil when `prefix` (the file's first bytes)
    /// is not recognizably text.
    static func describe(_ prefix: [UInt8]) -> String? {
        guard !prefix.isEmpty else { return "an empty file" }
        guard !prefix.contains(0) else { return nil }
        let text = String(decoding: prefix, as: UTF8.self)
        let start = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.prefix(64).lowercased()
        if start.hasPrefix("<!doctype html") || start.hasPrefix("<html") {
            return ErrorBodyExcerpt.excerpt(of: prefix, contentType: "text/html").map { "a web page titled \"\($0)\"" } ?? "a web page"
        }
        let type = start.hasPrefix("<") ? "application/xml" : start.hasPrefix("{") || start.hasPrefix("[") ? "application/json" : "text/plain"
        // Text: no control characters, and valid UTF-8 (a cut character at the very end aside).
        let scalars = text.unicodeScalars.dropLast(text.unicodeScalars.last == "\u{FFFD}" ? 1 : 0)
        guard scalars.allSatisfy({ ($0.value >= 0x20 && $0 != "\u{FFFD}") || $0 == "\n" || $0 == "\r" || $0 == "\t" }),
              let line = ErrorBodyExcerpt.excerpt(of: prefix, contentType: type) else { return nil }
        return "text: \(line)"
    }
}
