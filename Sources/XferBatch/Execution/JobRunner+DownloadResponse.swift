import Foundation
import XferCurl

extension JobRunner {
    /// The download's check of the response's status and headers, run by the engine before
    /// the first body byte: a nil answer lets the body come, a `TransferError` ends the
    /// transfer. On the way it decides how `watch` hashes the body and, for a resumable
    /// one, commits the record with the validators that a resume needs.
    ///
    /// - Parameters:
    ///   - started: the record the attempt began with (phase `running`).
    ///   - fd: the partial's descriptor, which the periodic flusher syncs.
    func responseCheck(_ attempt: DownloadAttempt, started: JobCheckpoint, descriptor fd: Int32,
                       watch: BodyWatch) -> @Sendable (Int, [String: String]) -> TransferError? {
        let job = attempt.jobID
        let partial = attempt.partial
        let folder = attempt.folder
        let destination = attempt.download.to
        let promised = attempt.download.size
        let offset = attempt.resumeFrom
        let resuming = offset > 0
        let space = self.space
        let store = checkpoints
        let interval = durableInterval
        return { status, headers in
            // The server's word: a length past any disk (or 64 bits, once the resume's
            // `offset` is added) must fail the download, not trap.
            let length = headers["content-length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
            // The whole file's size: a 206's is in its Content-Range, or else its length
            // counts after `offset` (a part ending short is no whole file: the engine says so).
            let whole = status == 206
                ? headers["content-range"].flatMap(ContentRange.completeLength) ?? length.map { offset.addingSaturating($0) }
                : length
            // The manifest's `size` against the length the server announces, before the
            // body: another attempt would fetch the same wrong file again (each of them
            // whole), so it fails at once, and the partial of another length goes.
            if let promised, let total = whole, status < 300 {
                if total != promised {
                    return TransferError(kind: .permanent, code: Self.sizeMismatch,
                                         message: "the server announces \(total) bytes, the manifest says \(promised)")
                }
            }
            // A large body the disk cannot hold, beside what other downloads under way
            // still need, is refused before its first byte (the manifest's `size` was
            // admitted before the request; this is the server's Content-Length): a nightly
            // run must not fill a disk other programs share, and then keep the partials
            // that fill it. A 200 to a Range empties the partial first, which frees the
            // `offset` bytes it held: what it needs is its length less those.
            if let length, let whole, length > Self.resumableSize,
               let shortfall = space.admit(job, partial: partial, total: whole,
                                           written: offset, folder: folder, for: destination) {
                return TransferError(kind: .permanent, code: DiskSpace.failureCode, message: shortfall)
            }
            // A large body is hashed while it arrives (see `FileDigest.Follower`).
            if status < 300, (length.map { $0.addingSaturating(resuming ? offset : 0) } ?? Int64.max) >= FileDigest.followThreshold {
                watch.follower.withLock { if $0 == nil { $0 = FileDigest.Follower(path: partial, chunks: watch.written) } }
                watch.inline?.stop()
            }
            // Committed before the first byte lands, so the partial's provenance is known.
            // Skipped for small bodies: a kill then costs a restart of at most
            // `resumableSize`, never a wrong byte, and small files need one commit, not two.
            guard let store, (length ?? Int64.max) > Self.resumableSize else { return nil }
            var r = started
            // The whole file's size, for `status` (percent) and `plan` (what a resume still
            // needs); the manifest's `size`, when given, was already recorded.
            if r.expectedSize == nil, let whole { r.expectedSize = whole }
            r.etag = TransferOutcome.validator("etag", in: headers) ?? (resuming ? started.etag : nil)
            r.lastModified = TransferOutcome.validator("last-modified", in: headers) ?? (resuming ? started.lastModified : nil)
            try? store.save(r)
            watch.resumable.withLock { $0 = r }
            if let interval {
                watch.flusher.withLock { task in
                    if task == nil { task = Task { await Self.flushPeriodically(fd, every: interval, watch: watch, store: store) } }
                }
            }
            return nil
        }
    }
}
