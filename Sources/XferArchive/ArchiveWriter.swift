internal import CArchive
#if canImport(Glibc)
import Glibc
#endif

/// Writes tar, tar.gz, tar.xz, tar.zst and zip archives with libarchive's write API.
///
/// Files are streamed in fixed 256 KiB blocks (memory stays flat whatever their size).
/// Entries are written in the order given (callers sort them). With `reproducible`,
/// mtime, owner, group and modes are fixed (and gzip's header timestamp is left out), so
/// identical inputs give byte-identical archives.
///
/// A compressed tarball is written as `tar | zstd` would be: the tar stream on the calling
/// thread, compression on a thread of its own (`CompressionStage`), so reading the inputs
/// and compressing overlap. (zstd's own worker thread, `threads=1`, was as fast but cost
/// 62 MiB more peak memory; `bench/archive-pack`.) Every output byte passes through
/// `observe` on its way to the file, so a caller can hash the archive without reading it
/// back.
public enum ArchiveWriter {
    public struct Entry: Sendable, Equatable {
        /// Name inside the archive (relative, `/`-separated).
        public var name: String
        public var sourcePath: String

        public init(name: String, sourcePath: String) {
            self.name = name
            self.sourcePath = sourcePath
        }
    }

    public struct Result: Sendable, Equatable {
        public var entries: Int
        /// Sum of the inputs' sizes.
        public var bytesIn: Int64
        /// Size of the archive written.
        public var bytesOut: Int64
    }

    static let blockSize = 256 * 1024

    /// Writes `entries` to `path` (which should be a temporary name; the caller renames).
    /// `progress` receives the input bytes read so far, once per block, and returns false
    /// to stop (the write then throws `ArchiveError.cancelled`).
    public static func write(_ entries: [Entry], to path: String, format: ArchiveFileFormat, level: Int?, reproducible: Bool,
                             observe: @escaping (UnsafeRawBufferPointer) -> Void = { _ in },
                             progress: (Int64) -> Bool = { _ in true }) throws(ArchiveError) -> Result {
        try UTF8Names.with { () throws(ArchiveError) -> Result in
            try writeInUTF8(entries, to: path, format: format, level: level, reproducible: reproducible, observe: observe, progress: progress)
        }
    }

    private static func writeInUTF8(_ entries: [Entry], to path: String, format: ArchiveFileFormat, level: Int?, reproducible: Bool,
                                    observe: @escaping (UnsafeRawBufferPointer) -> Void,
                                    progress: (Int64) -> Bool) throws(ArchiveError) -> Result {
        let lib = try LibArchive.functions()
        guard let a = lib.archive_write_new() else { throw ArchiveError(code: ArchiveError.fatal, message: "libarchive could not start an archive") }
        // libarchive may still write while it is freed (an unfinished archive is closed
        // then), so the sinks outlive it: all three go in this one deferred block.
        var file: OutputSink?
        var stage: CompressionStage?
        defer {
            _ = lib.archive_write_free(a)
            try? stage?.finish()
            file?.close()
        }
        try configureFormat(lib, a, format: format, level: level)
        // No padding after the last block: a file is not a tape (libarchive's own file
        // opener does the same; with padding, zero bytes would follow a zstd or xz stream).
        try check(lib, a, lib.archive_write_set_bytes_in_last_block(a, 1), "last block")
        // Hand the output over in 256 KiB blocks, not tar's 10 KiB: a hundred thousand
        // hand-offs to the compression thread per GiB would cost more than they save.
        try check(lib, a, lib.archive_write_set_bytes_per_block(a, Int32(blockSize)), "block size")
        let output = try OutputSink(path: path, observe: observe)
        file = output
        if format.isCompressedTar {
            let compressor = try CompressionStage(lib: lib, format: format, level: level, reproducible: reproducible, output: output)
            stage = compressor
            try compressor.attach(to: a, lib: lib, what: "cannot create \(path)")
        } else {
            try output.attach(to: a, lib: lib, what: "cannot create \(path)")
        }
        var bytesIn: Int64 = 0
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        do {
            for entry in entries {
                bytesIn += try add(entry, to: a, lib: lib, buffer: buffer, reproducible: reproducible, before: bytesIn, progress: progress)
            }
            try check(lib, a, lib.archive_write_close(a), "cannot finish \(path)")
            try stage?.finish()
            stage = nil
        } catch {
            // Nothing more goes out: not the rest of the open entry, which libarchive would
            // pad with zeros while `a` is freed, nor what waits for the compressor.
            // (The sink `a` writes to: the compressor's own output is its thread's.)
            if let stage { stage.abandon() } else { output.abandon() }
            try? stage?.finish()  // the compression thread has stopped: its errors are final
            throw output.failure ?? error  // ENOSPC and the like, with their errno
        }
        return Result(entries: entries.count, bytesIn: bytesIn, bytesOut: output.written)
    }

    /// The container: zip (compressed per entry, here) or pax-restricted tar.
    private static func configureFormat(_ lib: xb_archive_functions, _ a: OpaquePointer, format: ArchiveFileFormat, level: Int?) throws(ArchiveError) {
        if format == .zip {
            try check(lib, a, lib.archive_write_set_format_zip(a), "zip format")
            if let level { try check(lib, a, lib.archive_write_set_format_option(a, "zip", "compression-level", "\(level)"), "zip level") }
        } else {
            try check(lib, a, lib.archive_write_set_format_pax_restricted(a), "tar format")
        }
    }

    /// The compression filter of a compressed tarball (`CompressionStage` runs it).
    static func configureFilter(_ lib: xb_archive_functions, _ a: OpaquePointer, format: ArchiveFileFormat, level: Int?, reproducible: Bool) throws(ArchiveError) {
        switch format {
        case .tarGz:
            try check(lib, a, lib.archive_write_add_filter_gzip(a), "gzip filter")
            if reproducible { try check(lib, a, lib.archive_write_set_filter_option(a, "gzip", "timestamp", nil), "gzip timestamp") }
        case .tarXz: try check(lib, a, lib.archive_write_add_filter_xz(a), "xz filter")
        case .tarZst: try check(lib, a, lib.archive_write_add_filter_zstd(a), "zstd filter")
        case .tar, .zip: return
        }
        if let level { try check(lib, a, lib.archive_write_set_filter_option(a, nil, "compression-level", "\(level)"), "compression level") }
    }

    /// Adds one regular file; returns its size. Anything else is refused: opened without
    /// waiting (`O_NONBLOCK`: opening a named pipe no one writes would block the job
    /// forever, beyond reach of a cancel), and a pipe, device or socket has no size to
    /// put in the entry.
    private static func add(_ entry: Entry, to a: OpaquePointer, lib: xb_archive_functions, buffer: UnsafeMutableRawPointer, reproducible: Bool,
                            before: Int64, progress: (Int64) -> Bool) throws(ArchiveError) -> Int64 {
        let fd = open(entry.sourcePath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw ArchiveError(code: errno, message: "cannot read \(entry.sourcePath): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ArchiveError(code: errno, message: "cannot stat \(entry.sourcePath)") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ArchiveError(code: ArchiveError.fatal, message: "\(entry.sourcePath) is not a regular file (a pipe, device or socket); only files are packed")
        }
        guard UTF8Names.available || entry.name.utf8.allSatisfy({ $0 < 0x80 }) else {
            throw ArchiveError(code: ArchiveError.fatal, message: "cannot pack \(entry.name): names outside ASCII need the C.UTF-8 locale, which this system lacks")
        }
        guard let e = lib.archive_entry_new() else { throw ArchiveError(code: -30, message: "libarchive could not create an entry") }
        defer { lib.archive_entry_free(e) }
        lib.archive_entry_set_pathname_utf8(e, entry.name)
        lib.archive_entry_set_size(e, la_int64_t(info.st_size))
        lib.archive_entry_set_filetype(e, 0o100000)  // AE_IFREG
        if reproducible {
            lib.archive_entry_set_perm(e, 0o644)
            lib.archive_entry_set_mtime(e, 0, 0)
            lib.archive_entry_set_uid(e, 0)
            lib.archive_entry_set_gid(e, 0)
            lib.archive_entry_set_uname(e, "")
            lib.archive_entry_set_gname(e, "")
        } else {
            lib.archive_entry_set_perm(e, UInt32(info.st_mode & 0o7777))
            lib.archive_entry_set_mtime(e, info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
            lib.archive_entry_set_uid(e, la_int64_t(info.st_uid))
            lib.archive_entry_set_gid(e, la_int64_t(info.st_gid))
        }
        try check(lib, a, lib.archive_write_header(a, e), "cannot add \(entry.name)")
        var total: Int64 = 0
        while true {
            let n = read(fd, buffer, blockSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw ArchiveError(code: errno, message: "cannot read \(entry.sourcePath): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            let written = lib.archive_write_data(a, buffer, n)
            guard written == n else {
                throw ArchiveError(code: Int32(truncatingIfNeeded: written), message: "cannot write \(entry.name): \(errorText(lib, a))")
            }
            total += Int64(n)
            if !progress(before + total) { throw ArchiveError.cancelled }
        }
        guard total == Int64(info.st_size) else {
            throw ArchiveError(code: -30, message: "\(entry.sourcePath) changed size while being archived")
        }
        return total
    }

    /// Turns an ARCHIVE_* result into a thrown error (warnings pass).
    static func check(_ lib: xb_archive_functions, _ a: OpaquePointer, _ result: Int32, _ what: String) throws(ArchiveError) {
        guard result < ARCHIVE_WARN else { return }
        throw ArchiveError(code: result, message: "\(what): \(errorText(lib, a))")
    }

    private static func errorText(_ lib: xb_archive_functions, _ a: OpaquePointer) -> String {
        lib.archive_error_string(a).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}
