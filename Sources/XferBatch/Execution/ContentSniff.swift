import Foundation
import XferCurl

/// What a downloaded file holds when it is text where data was expected.
///
/// Why: a CI artifact URL with a wrong or expired token often answers 200 with a login
/// page. The extraction after it failed with libarchive's "Unrecognized archive format",
/// and a download with a `sha256` with a checksum mismatch, neither naming the cause.
/// Told from the content, since the response's Content-Type is gone by then.
enum ContentSniff {
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

    /// `describe` of the first 4 KiB of the file at `path` (nil if it cannot be read).
    static func describe(fileAt path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096) else { return describe([]) }
        return describe([UInt8](data))
    }
}
