/// The names a run writes under until their content is complete.
extension PathText {
    /// Ends the name of a partial download or archive (`<to>.xferpart`) and of an
    /// extraction's staging folder (`<folder>.xferpart/`).
    static let partialSuffix = ".xferpart"

    /// Whether `path` is such a file or folder, or inside one (an archive's glob passes
    /// them over). Compared on bytes: by `Character`, a name ending in a prepended mark
    /// (U+0600) joins it with the `.` after it, and `x\u{0600}.xferpart` did not end in
    /// `.xferpart`, so a download's partial was packed.
    ///
    /// One pass over the bytes, comparing the suffix only where a name ends: splitting the
    /// path into names allocated an array for every destination of a plan (a fifth of
    /// the instructions a 20,000-job plan gained with this check).
    static func isInProgress(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            let slash = UInt8(ascii: "/")
            let suffix = partialSuffixBytes
            let last = suffix[suffix.count - 1]
            // At each byte that could end the suffix: does a name end there, with it?
            for i in bytes.indices where bytes[i] == last {
                let end = i + 1
                if end == bytes.count || bytes[end] == slash, end >= suffix.count,
                   UnsafeBufferPointer(rebasing: bytes[(end - suffix.count)..<end]).elementsEqual(suffix) {
                    return true
                }
            }
            return false
        }
    }

    private static let partialSuffixBytes: [UInt8] = Array(partialSuffix.utf8)
}
