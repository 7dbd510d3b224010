import Foundation
import XferCurl

extension JobRunner {
    /// What a download's completed transfer becomes: a 304 confirms the finished file; a
    /// body is checked (size, SHA-256), recorded, and renamed into place, or discarded. The
    /// final path only ever receives a complete, verified file.
    ///
    /// - Parameters:
    ///   - record: the attempt's record (phase `running`).
    ///   - fd: the partial's descriptor, open and locked (the caller closes it after).
    ///
    /// `nonisolated(nonsending)`: it goes on in `download`'s context (on the lane's engine
    /// thread, `Executor.run`) without the runtime's executor switch at the call, which
    /// cost 1,250 instructions a file (callgrind, 2,000 small files).
    nonisolated(nonsending) func finish(_ outcome: TransferOutcome, _ attempt: DownloadAttempt, record: JobCheckpoint, descriptor fd: Int32,
                watch: BodyWatch) async throws -> AttemptResult {
        let d = attempt.download
        let partial = attempt.partial
        let previous = attempt.previous
        if outcome.status == 304 {
            unlink(partial)  // empty: a 304 has no body, and must never become the final file
            guard attempt.conditional, let prev = previous, let final = prev.finalPath else {
                throw JobFailure(kind: .permanent, code: "HTTP 304", message: "the server answered 304 Not Modified to an unconditional request")
            }
            try commit(prev, finishedFile: true)
            return AttemptResult(bytes: prev.bytes, destination: final, sha256: prev.sha256, httpStatus: 304, upToDate: true)
        }
        let total = outcome.resumed ? attempt.resumeFrom + outcome.bytesTransferred : outcome.bytesTransferred
        if let size = d.size, total != size {
            watch.follower.withLock { $0 }?.cancel()
            unlink(partial)
            throw JobFailure(kind: .transient, code: Self.sizeMismatch, message: "received \(total) bytes, the manifest says \(size)")
        }
        // The follower's digest holds unless the file was started over (a 200 to a Range).
        let followed = watch.follower.withLock { $0 }
        let rewritten = attempt.resumeFrom > 0 && !outcome.resumed
        if rewritten { followed?.cancel() }
        var known = rewritten ? nil : await followed?.finish(length: total)
        known = known ?? watch.inline?.finish(length: total)
        let digest = if let known { known } else { try await FileDigest.sha256Async(ofFileAt: partial) }
        if let expected = d.sha256, digest != expected {
            // Text where data was expected is most often a login or error page sent with 200.
            let holds = ContentSniff.describe(fileAt: partial).map { "; it holds \($0)" } ?? ""
            unlink(partial)  // never appended to again: its bytes are wrong
            if mismatches.repeated(digest, for: attempt.jobID) {
                throw JobFailure(kind: .permanent, code: "checksum-mismatch",
                                 message: "SHA-256 is \(digest) again, the manifest says \(expected)\(holds): the server sends another file than the manifest names (a stale or mistyped sha256?); the download is discarded")
            }
            throw JobFailure(kind: .transient, code: "checksum-mismatch",
                             message: "SHA-256 is \(digest), the manifest says \(expected)\(holds); the download is discarded")
        }
        // Fetched again (`refresh: always`, a conditional request answered 200) and the same
        // bytes as the finished file, still as recorded: that file stays, with its inode and
        // times, so the archives and extractions made from it stay up to date and a tool
        // watching modification times sees no change. Only the validators are new.
        if !attempt.intoFolder, let done = previous, done.phase == .done, done.sha256 == digest, done.finalPath == d.to,
           let stamp = FileStamp.of(d.to), stamp.size == total, done.finalModified == stamp.modified {
            unlink(partial)
            var kept = done
            kept.etag = outcome.etag ?? done.etag
            kept.lastModified = outcome.lastModified ?? done.lastModified
            kept.lastError = nil
            kept.updatedAt = Date().timeIntervalSince1970
            try commit(kept, finishedFile: true)
            return AttemptResult(bytes: total, destination: d.to, sha256: digest, httpStatus: outcome.status == 0 ? nil : outcome.status)
        }
        let final = attempt.intoFolder ? try nameAtRunTime(outcome, attempt) : d.to
        // Recorded before the rename, so that no moment leaves a finished download without
        // a record: a run killed between the two leaves the journal line (adopted once its
        // file is in place, by size and SHA-256) and the complete partial, which the next run
        // moves into place (answered 416, see `DownloadStart`) instead of downloading again.
        var record = record
        record.phase = .done
        record.bytes = total
        record.finalPath = final
        record.sha256 = digest
        record.partialPath = nil
        record.etag = outcome.etag ?? record.etag
        record.lastModified = outcome.lastModified ?? record.lastModified
        record.finalModified = FileStamp.of(descriptor: fd)?.modified  // the partial's; a rename keeps it
        record.updatedAt = Date().timeIntervalSince1970
        try commit(record, finishedFile: true)
        guard rename(partial, final) == 0 else {
            var failure = Self.localFailure("cannot move the download into place at \(final)")
            let partialGone = access(partial, F_OK) != 0
            if partialGone {
                // The partial went with its folder, removed during the download: nothing is
                // left to keep, and the next attempt makes the folder again and starts over.
                folders.forget(attempt.folder)
                failure = JobFailure(kind: .transient, code: failure.code,
                                     message: "\(PathText.parent(partial)) was removed while \(final) was downloaded; it is downloaded again")
            }
            // Not in place after all: the record says so, and keeps the complete partial,
            // with its validators, for the next run to move into place.
            record.phase = .failed
            record.partialPath = partialGone ? nil : partial
            record.finalPath = nil
            record.sha256 = nil
            record.finalModified = nil
            record.lastError = failure.description
            try? checkpoints?.save(record)
            throw failure
        }
        var result = AttemptResult(bytes: total, destination: final, sha256: digest, httpStatus: outcome.status == 0 ? nil : outcome.status)
        result.resumedFrom = outcome.resumed ? attempt.resumeFrom : 0
        return result
    }
}
