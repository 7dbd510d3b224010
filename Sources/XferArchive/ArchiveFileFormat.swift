/// The archive formats xferbatch writes and reads: tar (plain or compressed) and zip.
public enum ArchiveFileFormat: String, Sendable, CaseIterable {
    case tar
    case tarGz = "tar.gz"
    case tarXz = "tar.xz"
    case tarZst = "tar.zst"
    case zip
}
