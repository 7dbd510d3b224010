internal import CArchive

/// Reads an archive's entries one at a time through libarchive's read API.
///
/// Only tar (with gzip, bzip2, xz or zstd compression) and zip are enabled: `format: nil`
/// tells them apart by content, a given format must match. Zips are read through their
/// central directory when the file is seekable.
final class ArchiveReader {
    /// What an entry's header says.
    struct Header {
        enum Kind: Equatable {
            case file, directory, symlink, hardLink
            /// A device, FIFO or socket, named for messages.
            case special(String)
        }

        var name: String
        var kind: Kind
        /// Declared size; nil when the header does not say (streamed zip entries). A tar
        /// entry may be sparse, and then its data is less: see `mayHaveHoles`.
        var size: Int64?
        /// Whether the entry's format can store a sparse file (tar's GNU and pax forms; zip
        /// cannot), whose declared size counts holes that are never written.
        var mayHaveHoles: Bool
        var permissions: UInt32
        /// Seconds and nanoseconds since 1970, when the archive records it.
        var mtime: (seconds: Int, nanoseconds: Int)?
        /// The target of a symbolic or hard link.
        var linkTarget: String?
        /// Whether its data or name is encrypted (a zip made with a password).
        var encrypted = false
    }

    private let lib: xb_archive_functions
    private let handle: OpaquePointer
    let path: String

    init(path: String, format: ArchiveFileFormat?) throws(ArchiveError) {
        lib = try LibArchive.functions()
        guard let a = lib.archive_read_new() else { throw ArchiveError(code: ARCHIVE_FATAL, message: "libarchive could not start a reader") }
        handle = a
        self.path = path
        switch format {
        case nil:
            try check(lib.archive_read_support_format_tar(a), "tar format")
            try check(lib.archive_read_support_format_gnutar(a), "tar format")
            try check(lib.archive_read_support_format_zip(a), "zip format")
            for filter in [lib.archive_read_support_filter_gzip, lib.archive_read_support_filter_bzip2,
                           lib.archive_read_support_filter_xz, lib.archive_read_support_filter_zstd] {
                try check(filter(a), "compression filter")
            }
        case .zip:
            try check(lib.archive_read_support_format_zip(a), "zip format")
        case .tar, .tarGz, .tarXz, .tarZst:
            try check(lib.archive_read_support_format_tar(a), "tar format")
            try check(lib.archive_read_support_format_gnutar(a), "tar format")
            switch format {
            case .tarGz: try check(lib.archive_read_support_filter_gzip(a), "gzip filter")
            case .tarXz: try check(lib.archive_read_support_filter_xz(a), "xz filter")
            case .tarZst: try check(lib.archive_read_support_filter_zstd(a), "zstd filter")
            default: break
            }
        }
        try check(lib.archive_read_open_filename(a, path, 256 * 1024), "cannot open \(path)")
    }

    deinit { _ = lib.archive_read_free(handle) }

    /// The next entry's header, or nil at the end of the archive.
    func next() throws(ArchiveError) -> Header? {
        var entry: OpaquePointer?
        let r = lib.archive_read_next_header(handle, &entry)
        if r == ARCHIVE_EOF { return nil }
        try check(r, "cannot read the next entry")
        guard let e = entry else { return nil }
        let name = (lib.archive_entry_pathname_utf8(e) ?? lib.archive_entry_pathname(e)).map { String(cString: $0) } ?? ""
        let hardLink = lib.archive_entry_hardlink_utf8(e) ?? lib.archive_entry_hardlink(e)
        let kind: Header.Kind
        var target: String?
        if let hardLink {
            kind = .hardLink
            target = String(cString: hardLink)
        } else {
            switch lib.archive_entry_filetype(e) & 0o170000 {
            case 0o100000: kind = .file
            case 0o040000: kind = .directory
            case 0o120000:
                kind = .symlink
                target = (lib.archive_entry_symlink_utf8(e) ?? lib.archive_entry_symlink(e)).map { String(cString: $0) } ?? ""
            case 0o020000: kind = .special("character device")
            case 0o060000: kind = .special("block device")
            case 0o010000: kind = .special("FIFO")
            case 0o140000: kind = .special("socket")
            default: kind = .special("unknown type")
            }
        }
        let size: Int64? = lib.archive_entry_size_is_set(e) != 0 ? Int64(lib.archive_entry_size(e)) : nil
        let mtime = lib.archive_entry_mtime_is_set(e) != 0 ? (Int(lib.archive_entry_mtime(e)), Int(lib.archive_entry_mtime_nsec(e))) : nil
        let tar = lib.archive_format(handle) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR
        return Header(name: name, kind: kind, size: size, mayHaveHoles: tar, permissions: UInt32(lib.archive_entry_perm(e)), mtime: mtime,
                      linkTarget: target, encrypted: lib.archive_entry_is_encrypted(e) != 0)
    }

    /// The current entry's next block of data and where in the file it goes, or nil at the
    /// entry's end. The gaps between blocks are the holes of a sparse file (GNU tar
    /// `--sparse`), which hold zeros without being stored. The bytes are libarchive's,
    /// valid until the next call.
    func nextBlock() throws(ArchiveError) -> (bytes: UnsafeRawBufferPointer, offset: Int64)? {
        var start: UnsafeRawPointer? = nil
        var count = 0
        var offset: Int64 = 0
        let r = lib.archive_read_data_block(handle, &start, &count, &offset)
        if r == ARCHIVE_EOF { return nil }
        try check(r, "cannot read data")
        return (UnsafeRawBufferPointer(start: start, count: count), offset)
    }

    /// Bytes read from the archive file so far (compressed).
    var compressedBytesRead: Int64 { Int64(lib.archive_filter_bytes(handle, -1)) }

    private func check(_ result: Int32, _ what: String) throws(ArchiveError) {
        guard result < ARCHIVE_WARN else { return }
        throw ArchiveError(code: result, message: "\(what): \(errorText)")
    }

    private var errorText: String {
        lib.archive_error_string(handle).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}
