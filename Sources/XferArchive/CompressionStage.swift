internal import CArchive
import Foundation
import XferThreads

/// The second half of writing a compressed tarball: gzip, xz or zstd on a thread of its own.
///
/// The tar writer (on the caller's thread, reading the inputs) hands its output here in
/// chunks; this thread compresses them through a libarchive "raw" writer with the filter
/// and writes the file. That is `tar | zstd`: reading and compressing overlap on two cores.
/// The compressed bytes are the same as with the filter on the tar writer itself (one
/// stream, same options). At most `maxQueued` chunks of 256 KiB wait, so memory stays
/// flat; a compression or write failure is reported to the tar writer at its next chunk.
final class CompressionStage: ByteSink, @unchecked Sendable {
    static let maxQueued = 4
    private let lib: xb_archive_functions
    private let archive: OpaquePointer
    private let output: OutputSink
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    private var closed = false
    private var finished = false
    private var stageError: ArchiveError?

    init(lib: xb_archive_functions, format: ArchiveFileFormat, level: Int?, reproducible: Bool, output: OutputSink) throws(ArchiveError) {
        guard let a = lib.archive_write_new() else { throw ArchiveError(code: ArchiveError.fatal, message: "libarchive could not start a compressor") }
        self.lib = lib
        archive = a
        self.output = output
        super.init()
        do throws(ArchiveError) {
            try ArchiveWriter.check(lib, a, lib.archive_write_set_format_raw(a), "raw format")
            try ArchiveWriter.configureFilter(lib, a, format: format, level: level, reproducible: reproducible)
            try ArchiveWriter.check(lib, a, lib.archive_write_set_bytes_in_last_block(a, 1), "last block")
            try output.attach(to: a, lib: lib, what: "compressor")
            guard let e = lib.archive_entry_new() else { throw ArchiveError(code: ArchiveError.fatal, message: "libarchive could not create an entry") }
            defer { lib.archive_entry_free(e) }
            lib.archive_entry_set_pathname(e, "tar")
            lib.archive_entry_set_filetype(e, 0o100000)  // AE_IFREG: the raw format takes one regular entry
            try ArchiveWriter.check(lib, a, lib.archive_write_header(a, e), "compressor")
        } catch {
            _ = lib.archive_write_free(a)
            throw error
        }
        NamedThread.start("xb-compress") { [self] in compressUntilClosed() }
    }

    override func accept(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let chunk = Array(bytes)
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= Self.maxQueued && stageError == nil && !finished { condition.wait() }
        if let stageError {
            failure = stageError
            return false
        }
        if closed {  // after `finish`: no thread would take the chunk
            failure = ArchiveError(code: ArchiveError.fatal, message: "the compressor was already closed")
            return false
        }
        queue.append(chunk)
        condition.broadcast()
        return true
    }

    /// Waits until everything handed over is compressed and written, and the stream is
    /// closed. Always call it once (it ends the thread), also after a failure.
    func finish() throws(ArchiveError) {
        condition.lock()
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        let error = stageError
        condition.unlock()
        if let error { throw error }
    }

    private func compressUntilClosed() {
        var error: ArchiveError?
        while error == nil {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                break
            }
            let chunk = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            let n = chunk.withUnsafeBytes { lib.archive_write_data(archive, $0.baseAddress, $0.count) }
            if n < 0 { error = output.failure ?? ArchiveError(code: Int32(truncatingIfNeeded: n), message: "cannot compress: \(errorText)") }
        }
        if error == nil, lib.archive_write_close(archive) < ARCHIVE_WARN {
            error = output.failure ?? ArchiveError(code: ArchiveError.fatal, message: "cannot finish compressing: \(errorText)")
        }
        _ = lib.archive_write_free(archive)
        condition.lock()
        stageError = error
        finished = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private var errorText: String {
        lib.archive_error_string(archive).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}
