/// The archive formats xferbatch writes and reads: tar (plain or compressed) and zip.
public enum ArchiveFileFormat: String, Sendable, CaseIterable {
    case tar
    case tarGz = "tar.gz"
    case tarXz = "tar.xz"
    case tarZst = "tar.zst"
    case zip
}

extension ArchiveFileFormat {
    /// tar.gz, tar.xz and tar.zst: a tar stream through a compression filter.
    var isCompressedTar: Bool { self == .tarGz || self == .tarXz || self == .tarZst }
}
