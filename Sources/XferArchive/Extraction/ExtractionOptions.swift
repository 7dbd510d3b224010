#if canImport(Glibc)
import Glibc
#endif

/// Limits and shaping for one extraction.
public struct ExtractionOptions: Sendable, Equatable {
    /// Leading name components to drop (`tar --strip-components`); entries left with no
    /// name are skipped.
    public var stripComponents: Int
    /// Most bytes written in all, counted as they are written (declared sizes can lie).
    public var maxBytes: Int64
    /// Most entries read, of any kind.
    public var maxEntries: Int

    /// Whether a folder already at the target is this job's own earlier extraction, replaced
    /// whole. When not (the first extraction, or its record lost), a folder there may hold
    /// only files the new extraction also has: any other would be deleted by the swap, so
    /// the extraction fails instead (`ExtractionError.foreignFiles`), leaving it untouched.
    public var replacesFolder: Bool

    /// Whether files and folders keep the modes the archive gives them, or have the umask
    /// applied, as `tar -x` does: root keeps them (`--same-permissions` is tar's default
    /// for root), anyone else gets `mode & ~umask`. Setuid, setgid and sticky bits never
    /// survive either way.
    public var keepsArchivedModes: Bool

    public static let defaultMaxBytes: Int64 = 4 << 30
    public static let defaultMaxEntries = 100_000

    public init(stripComponents: Int = 0, maxBytes: Int64 = defaultMaxBytes, maxEntries: Int = defaultMaxEntries,
                replacesFolder: Bool = false, keepsArchivedModes: Bool = geteuid() == 0) {
        self.stripComponents = stripComponents
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
        self.replacesFolder = replacesFolder
        self.keepsArchivedModes = keepsArchivedModes
    }
}

/// What an extraction produced.
public struct ExtractionResult: Sendable, Equatable {
    /// Entries read from the archive (including skipped ones).
    public var entries: Int
    public var files: Int
    public var folders: Int
    public var links: Int
    /// Size of the archive file.
    public var bytesIn: Int64
    /// Data bytes written.
    public var bytesOut: Int64
}
