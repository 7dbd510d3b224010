internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Body bytes on their way into the destination file, in writes of up to
/// `coalescedWriteSize` bytes.
///
/// libcurl hands the write callback at most 16 KiB at a time (CURL_MAX_WRITE_SIZE), so a
/// 64 KiB receive became four `pwrite` calls: 65,536 system calls per GiB, where wget2
/// makes one write per receive. Bytes are gathered here instead and written once the
/// buffer is full, and whatever remains when the transfer ends, whichever way it ends, so
/// nothing received is dropped. A body that arrives in one callback (up to 16 KiB) is
/// written straight through and never allocates the buffer.
///
/// What a kill costs: at most the buffered bytes, which were never in the file. The
/// partial's length stays the trustworthy offset, because only whole writes reach it.
extension EasyTransfer {
    /// Bytes gathered before one `pwrite`, in bytes.
    static let coalescedWriteSize = 256 * 1024

    /// Writes (or gathers) `chunk`. False, with `localFailure` set, when the disk refused.
    func write(_ chunk: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        if pendingWrite == nil {
            if !sawFirstChunk {
                sawFirstChunk = true
                return writeThrough(chunk, to: fd)
            }
            pendingWrite = .allocate(byteCount: Self.coalescedWriteSize, alignment: 16)
        }
        var rest = chunk
        while !rest.isEmpty {
            if pendingCount == Self.coalescedWriteSize {
                guard flushPendingWrite() else { return false }
            }
            // Read again after each flush: a flush may have lent the buffer and put an empty one in its place.
            guard let buffer = pendingWrite else { return false }
            let n = min(rest.count, buffer.count - pendingCount)
            (buffer.baseAddress! + pendingCount).copyMemory(from: rest.baseAddress!, byteCount: n)
            pendingCount += n
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
        return true
    }

    /// Whether taking a chunk of `bytes` now would fill the buffer while the reader of
    /// `writtenChunks` holds every spare one: the write callback then pauses the transfer
    /// (libcurl keeps the chunk), and the reader's thread asks the loop to go on once it
    /// gives a buffer back (`TransferEngine.Command.readerReady`). Stalls do not count
    /// while it waits. Never when libcurl cannot pause the transfer (`canPause`: `file:`):
    /// its bytes go on unlent, and the reader reads them from the file.
    func waitsForReader(_ bytes: Int) -> Bool {
        guard let chunks = request.writtenChunks, pendingWrite != nil, pendingCount + bytes > Self.coalescedWriteSize,
              let engine, Self.canPause(scheme) else { return false }
        let id = self.id
        heldForReader = !chunks.canLend { [weak engine] in engine?.send(.readerReady(id)) }
        return heldForReader
    }

    /// The reader gave a buffer back: the loop un-pauses the transfer. A refused un-pause
    /// fails it (at its next progress call).
    func resumeForReader() {
        guard heldForReader, let handle else { return }
        heldForReader = false
        do {
            try check(curl.pointee.curl_easy_pause(handle, XB_CURLPAUSE_CONT), "cannot go on after waiting for the digest")
        } catch {
            localFailure = localFailure ?? error
        }
    }

    /// Writes out the gathered bytes, then lends them to the request's `writtenChunks`
    /// reader if it takes them. Called when the buffer is full and before the transfer's
    /// result is read; false, with `localFailure` set, when the disk refused.
    @discardableResult
    func flushPendingWrite() -> Bool {
        guard pendingCount > 0, let buffer = pendingWrite, case .file(let fd, _) = request.destination else { return true }
        let start = writeOffset
        let ok = writeThrough(UnsafeRawBufferPointer(rebasing: buffer[..<pendingCount]), to: fd)
        if ok, let chunks = request.writtenChunks {
            pendingWrite = chunks.lend(buffer, count: pendingCount, at: start)
        }
        pendingCount = 0
        return ok
    }

    /// Sets the progress counters of a download that failed to the bytes that reached its
    /// file, which the caller counts as moved (`RunSummary.bytes`). libcurl's count also
    /// holds bytes received and never written: a body refused at its first chunk (too
    /// large for the disk, another length than the manifest's), an error response's body
    /// (kept in memory, never written), or a body cut at `maxFileSize`. Call it once the
    /// transfer has ended (the last gathered bytes are written by then).
    func countWrittenBytes() {
        guard case .file = request.destination, case .none = request.body else { return }
        progress.update(done: bytesWritten, expected: nil)
    }

    /// Frees the buffer (after a last flush).
    func releasePendingWrite() {
        flushPendingWrite()
        pendingWrite?.deallocate()
        pendingWrite = nil
    }

    private func writeThrough(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(writeOffset))
            if n < 0 {
                if errno == EINTR { continue }
                localFailure = EasyTransfer.localError(errno, "cannot write the downloaded data")
                return false
            }
            request.onBodyWritten?(UnsafeRawBufferPointer(rebasing: bytes[done..<(done + n)]))
            done += n
            writeOffset += Int64(n)
            bytesWritten += Int64(n)
        }
        return true
    }
}
