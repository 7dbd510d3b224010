internal import CArchive

/// Where libarchive's writer sends its output, through `write`, its C callback: the archive
/// file itself (`OutputSink`) or the compression stage (`CompressionStage`).
class ByteSink {
    /// Why `accept` refused bytes (libarchive only learns that the callback failed).
    var failure: ArchiveError?

    /// Takes all of `bytes`, or returns false with `failure` set.
    func accept(_ bytes: UnsafeRawBufferPointer) -> Bool { false }

    /// Makes this sink the output of `a` (it must outlive `a`: libarchive writes while it
    /// is closed or freed).
    func attach(to a: OpaquePointer, what: String) throws(ArchiveError) {
        let r = archive_write_open2(a, Unmanaged.passUnretained(self).toOpaque(), nil, Self.write, nil, nil)
        guard r >= ARCHIVE_WARN else {
            throw failure ?? ArchiveError(code: r, message: "\(what): \(archive_error_string(a).map { String(cString: $0) } ?? "cannot open")")
        }
    }

    private static let write: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int = { _, client, buffer, length in
        guard let client else { return -1 }
        let sink = Unmanaged<ByteSink>.fromOpaque(client).takeUnretainedValue()
        return sink.accept(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : -1
    }
}
