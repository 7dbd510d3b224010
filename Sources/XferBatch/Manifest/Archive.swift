import XferArchive

/// Pack the outputs of other jobs (or paths they produced) into one archive file.
public struct Archive: Sendable {
    /// Job ids or paths/globs under `outputDir`, as written; the planner tells them apart.
    public var from: [String]
    /// Destination, relative to `outputDir` unless absolute.
    public var to: String
    public var format: ArchiveFormat
    /// Compression level; the format's default when absent.
    public var level: Int?
    /// Prepended to every entry name, e.g. `bundle/`.
    public var prefix: String
    /// Fixed mtime, owner and modes, so identical inputs give identical bytes.
    public var reproducible: Bool
    /// Delete the inputs once the archive is complete and renamed into place.
    public var removeSources: Bool

    public init(from: [String], to: String, format: ArchiveFormat, level: Int? = nil, prefix: String = "",
                reproducible: Bool = false, removeSources: Bool = false) {
        self.from = from
        self.to = to
        self.format = format
        self.level = level
        self.prefix = prefix
        self.reproducible = reproducible
        self.removeSources = removeSources
    }

    /// The archive is written here and renamed onto `to` once complete.
    public var partialPath: String { PathText.sibling(of: to, suffix: PathText.partialSuffix) }
}

/// Archive formats an archive job can write and an extract job can read: `XferArchive`'s.
public typealias ArchiveFormat = ArchiveFileFormat

extension ArchiveFileFormat {
    /// The format a file name implies (`x.tgz` -> tar.gz), or nil.
    public static func inferred(from fileName: String) -> ArchiveFormat? {
        let name = fileName.lowercased()
        let table: [(String, ArchiveFormat)] = [
            (".tar.gz", .tarGz), (".tgz", .tarGz), (".tar.xz", .tarXz), (".txz", .tarXz),
            (".tar.zst", .tarZst), (".tzst", .tarZst), (".tar", .tar), (".zip", .zip),
        ]
        return table.first { name.hasSuffix($0.0) }?.1
    }
}
