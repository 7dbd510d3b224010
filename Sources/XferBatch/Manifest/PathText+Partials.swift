/// The names a run writes under until their content is complete.
extension PathText {
    /// Ends the name of a partial download or archive (`<to>.xferpart`) and of an
    /// extraction's staging folder (`<folder>.xferpart/`).
    static let partialSuffix = ".xferpart"

    /// Whether `path` is such a file or folder, or inside one (an archive's glob passes
    /// them over). Compared on bytes: by `Character`, a name ending in a prepended mark
    /// (U+0600) joins it with the `.` after it, and `x\u{0600}.xferpart` did not end in
    /// `.xferpart`, so a download's partial was packed.
    static func isInProgress(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            let suffix = partialSuffix.utf8
            return bytes.split(separator: UInt8(ascii: "/")).contains { $0.count >= suffix.count && $0.suffix(suffix.count).elementsEqual(suffix) }
        }
    }
}
