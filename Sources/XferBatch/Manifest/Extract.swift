import XferArchive

/// Unpack a zip or tarball another job produced into a folder, safely.
///
/// The folder is replaced as a whole, and only once the archive has been read completely
/// and every entry passed the safety rules (see `XferArchive.ArchiveExtractor`).
public struct Extract: Sendable {
    /// The id of the job whose output file is the archive.
    public var from: String
    /// Destination folder, relative to `outputDir` unless absolute; always ends in `/`
    /// once planned.
    public var to: String
    /// nil: told apart by content (tar, compressed or not, or zip).
    public var format: ArchiveFormat?
    /// Leading name components to drop, as `tar --strip-components`.
    public var stripComponents: Int
    /// Most bytes written in all, counted as they are written (archive-bomb guard).
    public var maxBytes: Int64
    /// Most entries read (archive-bomb guard).
    public var maxEntries: Int

    /// The extractor's own defaults (4 GiB, 100,000 entries).
    public static let defaultMaxBytes = ExtractionOptions.defaultMaxBytes
    public static let defaultMaxEntries = ExtractionOptions.defaultMaxEntries

    /// The folder itself: `to` without its trailing `/`.
    public var folder: String { Self.folder(to: to) }

    /// The folder an extraction to `to` fills, without a trailing `/`.
    public static func folder(to: String) -> String { to.hasSuffix("/") ? String(to.dropLast()) : to }

    /// Entries are extracted here, then the folder is swapped into place.
    public var stagingFolder: String { PathText.sibling(of: folder, suffix: PathText.partialSuffix) }

    public init(from: String, to: String, format: ArchiveFormat? = nil, stripComponents: Int = 0,
                maxBytes: Int64 = defaultMaxBytes, maxEntries: Int = defaultMaxEntries) {
        self.from = from
        self.to = to
        self.format = format
        self.stripComponents = stripComponents
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
    }
}
