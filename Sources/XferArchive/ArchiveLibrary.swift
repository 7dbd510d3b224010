internal import CArchive

/// Facts about the libarchive this binary loads when it needs one (see `LibArchive`).
public enum ArchiveLibrary {
    /// libarchive's version, e.g. `3.6.2` (loading the library), or why it cannot be loaded.
    public static var version: String {
        do throws(ArchiveError) {
            let full = try LibArchive.functions().archive_version_string().map { String(cString: $0) } ?? ""
            // "libarchive 3.6.2" -> "3.6.2"
            return full.split(separator: " ").last.map(String.init) ?? full
        } catch {
            return "not loaded: \(error.message)"
        }
    }
}
