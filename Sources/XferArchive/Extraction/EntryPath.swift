/// The safety rules for an entry's name, applied before anything is written.
///
/// An entry may only name a place inside the target folder: absolute paths (`/etc/x`,
/// `C:\x`, `\\server\x`) and any `..` component (with `/` or `\` as the separator, since a
/// zip made on Windows may use either) are refused outright rather than "cleaned", because
/// an archive that tries them is hostile or broken. Empty and `.` components are dropped.
/// Pure: no I/O, so every rule is tested on its own.
enum EntryPath {
    /// Longest single name component, in bytes (Linux NAME_MAX).
    static let maxComponentBytes = 255
    /// Longest relative path, in bytes (below Linux PATH_MAX with room for the target).
    static let maxPathBytes = 3_072

    /// The components of `name` after dropping `strip` leading ones; nil when stripping
    /// leaves nothing (the entry is skipped, as `tar --strip-components` does).
    /// - Throws: the reason the name is refused.
    static func components(of name: String, strip: Int) throws(ExtractionError.Reason) -> [String]? {
        if name.isEmpty { throw .emptyName }
        if isAbsolute(name) { throw .absolutePath }
        let pieces = Self.pieces(of: name)
        var parts: [String] = []
        parts.reserveCapacity(pieces.count)
        for piece in pieces {
            if Self.isCurrent(piece) { continue }
            if Self.isParent(piece) || Self.pieces(of: piece, at: UInt8(ascii: "\\"), keepingEmpty: true).contains(where: Self.isParent) {
                throw .parentReference
            }
            if piece.utf8.count > maxComponentBytes { throw .nameTooLong }
            parts.append(String(piece))
        }
        if name.utf8.count > maxPathBytes { throw .nameTooLong }
        guard parts.count > strip else { return nil }
        return Array(parts.dropFirst(strip))
    }

    /// `/x`, `\x`, `C:x`, `C:\x`.
    static func isAbsolute(_ name: String) -> Bool {
        let bytes = Array(name.utf8.prefix(2))
        if bytes.first == UInt8(ascii: "/") || bytes.first == UInt8(ascii: "\\") { return true }
        if bytes.count == 2, bytes[1] == UInt8(ascii: ":"),
           (bytes[0] | 0x20) >= UInt8(ascii: "a"), (bytes[0] | 0x20) <= UInt8(ascii: "z") {
            return true
        }
        return false
    }

    /// Where a symbolic link's target leads, resolved by name from the link's folder: the
    /// components under the target folder, or nil when it climbs out of it. (Links through
    /// other links are checked on disk afterwards, by `LinkConfinement`.)
    static func lexicalTarget(_ target: String, from folder: [String]) -> [String]? {
        if isAbsolute(target) { return nil }
        var stack = folder
        for piece in pieces(of: target) {
            if isCurrent(piece) { continue }
            if isParent(piece) {
                if stack.isEmpty { return nil }
                stack.removeLast()
            } else {
                stack.append(piece)
            }
        }
        return stack
    }

    /// `text` split at each `separator` byte, as the kernel splits a path.
    ///
    /// By bytes, never by `Character`: Swift splits a `String` between grapheme clusters,
    /// and a "prepend" mark (U+0600 and others) joins the `/` after it into one, so
    /// `a\u{600}/..` would read as one name where the kernel sees `a\u{600}` and `..`: a
    /// link's target could climb out unseen. A split at an ASCII byte leaves valid UTF-8.
    static func pieces(of text: String, at separator: UInt8 = UInt8(ascii: "/"), keepingEmpty: Bool = false) -> [String] {
        text.utf8.split(separator: separator, omittingEmptySubsequences: !keepingEmpty).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `.`, by its bytes (a `String` comparison goes by canonical equivalence).
    static func isCurrent(_ piece: String) -> Bool { piece.utf8.elementsEqual([0x2E]) }

    /// `..`, by its bytes.
    static func isParent(_ piece: String) -> Bool { piece.utf8.elementsEqual([0x2E, 0x2E]) }
}
