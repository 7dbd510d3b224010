/// File names against the length Linux file systems accept.
///
/// ext4, xfs, btrfs and tmpfs refuse a name of more than 255 bytes (`NAME_MAX`) with
/// ENAMETOOLONG. A destination may use all 255: its name in progress (`<name>.xferpart`)
/// must still fit, or a file curl can fetch would fail here before its first byte.
extension PathText {
    /// The longest file name, in bytes of UTF-8, the file systems above accept.
    static let maxNameBytes = 255

    /// Bytes the disambiguating tag of a shortened name takes: `~` and 16 hex digits.
    private static let tagBytes = 17

    /// The length in bytes of the longest name in `path` (one pass, no allocation: it runs
    /// for every destination of a manifest).
    static func longestNameBytes(_ path: String) -> Int {
        var path = path
        return path.withUTF8 { bytes in  // contiguous: cheaper than walking `path.utf8`
            var longest = 0, current = 0
            for byte in bytes {
                if byte == UInt8(ascii: "/") { current = 0 } else { current += 1; longest = max(longest, current) }
            }
            return longest
        }
    }

    /// The path `path + suffix`, or, when that name would pass `maxNameBytes`, the name cut
    /// short, tagged with a hash of the whole name, then the suffix (`/d/aaaa…~3f2c….xferpart`).
    ///
    /// Deterministic (FNV-1a, not the process-seeded `Hasher`): a re-run computes the same
    /// name and finds the partial it resumes. Two long names that share their first 229
    /// bytes differ in the tag, so their partials never meet.
    static func sibling(of path: String, suffix: String) -> String {
        // A whole path this short has a name this short: no search for the last `/`.
        if path.utf8.count + suffix.utf8.count <= maxNameBytes { return path + suffix }
        let bytes = path.utf8
        let nameStart = bytes.lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
        let nameBytes = bytes.distance(from: nameStart, to: bytes.endIndex)
        guard nameBytes + suffix.utf8.count > maxNameBytes else { return path + suffix }
        let name = path[nameStart...]
        let kept = prefix(of: name, bytes: maxNameBytes - suffix.utf8.count - tagBytes)
        return String(path[..<nameStart]) + kept + "~" + hex16(fnv1a(name.utf8)) + suffix
    }

    /// A file name cut to `maxNameBytes`, keeping its extension (`.tar.gz` counts as `.gz`)
    /// when it has a short one: `report-…-2026.pdf` stays a `.pdf`.
    static func fittingName(_ name: String) -> String {
        guard name.utf8.count > maxNameBytes else { return name }
        let dot = name.utf8.lastIndex(of: UInt8(ascii: "."))
        let ext = dot.map { String(name[$0...]) } ?? ""
        guard !ext.isEmpty, ext.utf8.count <= 16 else { return prefix(of: Substring(name), bytes: maxNameBytes) }
        return prefix(of: Substring(name), bytes: maxNameBytes - ext.utf8.count) + ext
    }

    /// The longest start of `text` of at most `bytes` UTF-8 bytes that ends on a whole
    /// Unicode scalar (a cut inside one would make the name invalid UTF-8).
    private static func prefix(of text: Substring, bytes: Int) -> String {
        var used = 0
        var end = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            guard used + width <= bytes else { break }
            used += width
            end = text.unicodeScalars.index(after: end)
        }
        return String(text.unicodeScalars[..<end])
    }

    /// Sixteen lower-case hex digits.
    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    /// 64-bit FNV-1a of some bytes.
    private static func fnv1a(_ bytes: Substring.UTF8View) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}
