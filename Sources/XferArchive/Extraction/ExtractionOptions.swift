/// Limits and shaping for one extraction.
public struct ExtractionOptions: Sendable, Equatable {
    /// Leading name components to drop (`tar --strip-components`); entries left with no
    /// name are skipped.
    public var stripComponents: Int
    /// Most bytes written in all, counted as they are written (declared sizes can lie).
    public var maxBytes: Int64
    /// Most entries read, of any kind.
    public var maxEntries: Int

    public static let defaultMaxBytes: Int64 = 4 << 30
    public static let defaultMaxEntries = 100_000

    public init(stripComponents: Int = 0, maxBytes: Int64 = defaultMaxBytes, maxEntries: Int = defaultMaxEntries) {
        self.stripComponents = stripComponents
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
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
