internal import CArchive

/// Where libarchive's writer sends its output, through `write`, its C callback: the archive
/// file itself (`OutputSink`) or the compression stage (`CompressionStage`).
class ByteSink {
    /// Why `accept` refused bytes (libarchive only learns that the callback failed).
    var failure: ArchiveError?
    /// Set once the archive is given up (a cancel, a failed read): every later write is
    /// refused. libarchive, while it frees an unfinished archive, pads the open entry to the
    /// size its header announced: hundreds of MiB of zeros for a large file cancelled early,
    /// written to the file or queued for a compressor that has already stopped (which waited
    /// for room forever). Set and read on the thread that writes to this sink.
    private(set) var abandoned = false

    func abandon() { abandoned = true }

    /// Takes all of `bytes`, or returns false with `failure` set.
    func accept(_ bytes: UnsafeRawBufferPointer) -> Bool { false }

    /// Makes this sink the output of `a` (it must outlive `a`: libarchive writes while it
    /// is closed or freed).
    func attach(to a: OpaquePointer, lib: xb_archive_functions, what: String) throws(ArchiveError) {
        let r = lib.archive_write_open2(a, Unmanaged.passUnretained(self).toOpaque(), nil, Self.write, nil, nil)
        guard r >= ARCHIVE_WARN else {
            throw failure ?? ArchiveError(code: r, message: "\(what): \(lib.archive_error_string(a).map { String(cString: $0) } ?? "cannot open")")
        }
    }

    private static let write: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int = { _, client, buffer, length in
        guard let client else { return -1 }
        let sink = Unmanaged<ByteSink>.fromOpaque(client).takeUnretainedValue()
        if sink.abandoned { return -1 }
        return sink.accept(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : -1
    }
}
