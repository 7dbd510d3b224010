/// How many terminal columns text takes, for the live display's lines.
///
/// East Asian wide and fullwidth characters (CJK, kana, Hangul, fullwidth forms) and most
/// emoji take two columns; everything else one (a combining mark belongs to the character
/// before it). Counted in characters, a job id in Japanese made a line twice as wide as
/// the terminal: it wrapped, and each redraw then erased too few lines and piled up. An
/// approximation of `wcwidth(3)` that needs no locale.
enum DisplayWidth {
    static func of(_ c: Character) -> Int {
        guard let scalar = c.unicodeScalars.first?.value else { return 0 }
        return wideRanges.contains { $0.contains(scalar) } ? 2 : 1
    }

    static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The longest start of `text` that fits in `columns`.
    static func prefix(_ text: some StringProtocol, columns: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += of(text[index])
            if used > columns { break }
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// The longest end of `text` that fits in `columns`.
    static func suffix(_ text: some StringProtocol, columns: Int) -> String {
        var used = 0
        var start = text.endIndex
        for index in text.indices.reversed() {
            used += of(text[index])
            if used > columns { break }
            start = index
        }
        return String(text[start...])
    }

    /// `text` in `columns` at most: whole when it fits, else its start and its end around
    /// an ellipsis. Ids that differ only at the end (`nightly-db-shard-07`, `-08`) stay
    /// apart; cut at the end, they all read `nightly-db-shard`.
    static func middleCut(_ text: some StringProtocol, columns: Int) -> String {
        guard of(text) > columns else { return String(text) }
        guard columns > 2 else { return prefix(text, columns: columns) }
        let head = prefix(text, columns: (columns - 1) / 2)
        return head + "…" + suffix(text, columns: columns - 1 - of(head))
    }

    /// `text` fitted to `columns` (`middleCut`) and padded with spaces to exactly that many.
    static func fitted(_ text: some StringProtocol, columns: Int) -> String {
        let cut = middleCut(text, columns: columns)
        return cut + String(repeating: " ", count: max(0, columns - of(cut)))
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
