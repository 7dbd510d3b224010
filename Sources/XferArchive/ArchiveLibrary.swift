internal import CArchive

/// Facts about the libarchive this binary links.
public enum ArchiveLibrary {
    /// libarchive's version, e.g. `3.6.2`.
    public static var version: String {
        let full = String(cString: archive_version_string())
        // "libarchive 3.6.2" -> "3.6.2"
        return full.split(separator: " ").last.map(String.init) ?? full
    }

    /// libarchive's version with the compression libraries it was built with.
    public static var details: String {
        String(cString: archive_version_details())
    }
}
