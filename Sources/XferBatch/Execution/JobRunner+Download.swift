import Foundation
import XferCurl

extension JobRunner {
    /// One download attempt, checkpointed:
    /// - done before (same fingerprint, final file present with the recorded size and
    ///   modification time) and `refresh: never` -> up to date, nothing transferred;
    ///   `conditional` -> asks with the stored validators, 304 -> up to date. The recorded
    ///   size but another time: the file is hashed, and kept only if it is still the download;
    /// - a partial from this boot with a stored validator -> `Range` + `If-Range`; a 200 means
    ///   the server ignored it or the entity changed, and the engine starts the file over;
    /// - otherwise from byte 0. Validators are committed (`onResponse`) before the first
    ///   body byte is written, so a killed run can resume what it left.
    func download(_ job: PlannedJob, _ d: Download, progress: TransferProgress, began: StartAnnouncement) async throws -> AttemptResult {
        guard let t = job.transfer else { throw JobFailure(kind: .permanent, code: "plan", message: "no transfer settings") }
        let fingerprint = JobFingerprint.of(job)
        let stored = ((try? checkpoints?.load(job.id)) ?? nil) ?? renamed.records[job.id]
        var previous = stored?.fingerprint == fingerprint ? stored : nil
        // Packed into a standing archive that removed it (see `PackedSources`): its content
        // is there, and fetching it again would only make the archive be rebuilt.
        if packed.sources[job.id] != nil, let done = previous, let final = done.finalPath {
            return AttemptResult(bytes: done.bytes, destination: final, sha256: done.sha256, httpStatus: nil, upToDate: true)
        }
        let intoFolder = d.namesFileAtRunTime
        let folder = intoFolder ? d.to : PathText.parent(d.to)
        let partial = d.partialPath(jobID: job.id)

        var conditional = false
        var resumeFrom: Int64 = 0
        var ifRange: String? = nil
        let start: DownloadStart
        (start, previous) = try await begin(job, d, partial: partial, fingerprint: fingerprint, previous: previous)
        switch start {
        case .upToDate(let final):
            // Recorded under the job's old id: now under this one, as if this job had fetched it.
            if let adopted = renamed.records[job.id], previous == adopted { try commit(adopted, finishedFile: true) }
            return AttemptResult(bytes: previous?.bytes ?? 0, destination: final, sha256: previous?.sha256, httpStatus: nil, upToDate: true)
        case .conditional:
            conditional = true
        case .resume(let offset, let validator):
            resumeFrom = offset
            ifRange = validator
        case .fresh, .changed, .existing:
            break
        }
        began(resumeFrom: resumeFrom)
        // An edited job starts fresh. A partial its old definition left under another name
        // (a new `to`) is of no use now, and its record is about to be replaced: deleted
        // first, so that no partial is ever left that no record names.
        if stored?.fingerprint != fingerprint, let old = stored?.partialPath, old != partial, old != d.to { unlink(old) }
        if !intoFolder, let problem = DestinationCheck.problem(at: d.to, folderHint: DestinationCheck.downloadHint) {
            throw DestinationCheck.failure(problem)
        }
        if let problem = LocalFileURL.problem(d.url) { throw DestinationCheck.failure(problem) }
        // Whatever this attempt admits is released when it ends: done, its bytes are in
        // the free space figure; failed, they are no longer promised.
        defer { space.release(job.id) }
        if let size = d.size, let shortfall = space.admit(job.id, partial: partial, total: size, written: resumeFrom, folder: folder, for: d.to) {
            throw JobFailure(kind: .permanent, code: DiskSpace.failureCode, message: shortfall)
        }
        try folders.ensure(folder)
        // Usually new: created empty, it needs no truncation below (a system call per file).
        func openPartial() -> (fd: Int32, created: Bool) {
            let new = resumeFrom == 0 ? open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) : -1
            return new >= 0 ? (new, true) : (open(partial, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644), false)
        }
        var opened = openPartial()
        if opened.fd < 0, errno == ENOENT {
            // The folder was removed since this run made it (a cleanup job, `rm -rf out`):
            // made again, as a new run would.
            folders.forget(folder)
            try folders.ensure(folder)
            opened = openPartial()
        }
        let (fd, created) = opened
        guard fd >= 0 else { throw Self.localFailure("cannot create \(partial)") }
        // Ours alone until it is renamed and closed (see `PartialLock`); taken before the
        // truncation below, so a partial another run is writing is left untouched.
        try PartialLock.take(fd, partial: partial)
        // Continue exactly at the trusted offset (from 0: emptied): after a reboot the bytes
        // past the flushed offset may be zeros or garbage.
        if !created, ftruncate(fd, off_t(resumeFrom)) != 0 {
            close(fd)
            throw Self.localFailure("cannot cut \(partial) to \(resumeFrom) bytes")
        }

        var record = JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .running, attempts: (previous?.attempts ?? 0) + 1,
                                   bytes: resumeFrom, expectedSize: d.size, etag: resumeFrom > 0 ? previous?.etag : nil,
                                   lastModified: resumeFrom > 0 ? previous?.lastModified : nil, partialPath: partial,
                                   bootID: BootID.current, updatedAt: Date().timeIntervalSince1970)
        var request = try self.request(d.url, t)
        request.destination = .file(descriptor: fd, offset: resumeFrom)
        if resumeFrom > 0 {
            request.resumeFrom = resumeFrom
            request.ifRange = ifRange
        }
        if conditional, let prev = previous {
            request.ifNoneMatch = prev.etag
            request.ifModifiedSince = prev.etag == nil ? prev.lastModified : nil
        }
        let follower = Slot<FileDigest.Follower?>(nil)
        let written = WrittenChunks()
        request.writtenChunks = written
        // A body from byte 0 is hashed as it is written, unless it is large enough for a follower.
        let inline = resumeFrom == 0 ? FileDigest.Inline() : nil
        if let inline { request.onBodyWritten = { inline.update($0) } }
        // The resumable record saved at the response, for the periodic durable checkpoints,
        // and the task that writes them: started only for a resumable body, so a small file
        // costs no timer.
        let resumable = Slot<JobCheckpoint?>(nil)
        let flusher = Slot<Task<Void, Never>?>(nil)
        let started = record
        let resuming = resumeFrom > 0
        let offset = resumeFrom
        let store = checkpoints
        let interval = durableInterval
        let destination = d.to
        let space = self.space
        let promised = d.size
        request.maxFileSize = promised
        request.onResponse = { status, headers in
            let length = headers["content-length"].flatMap { Int64($0) }
            // The manifest's `size` against the length the server announces, before the
            // body: another attempt would fetch the same wrong file again (each of them
            // whole), so it fails at once, and the partial of another length goes.
            if let promised, let length, status < 300 {
                let total = status == 206 ? offset + length : length
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
            if let length, length > Self.resumableSize,
               let shortfall = space.admit(job.id, partial: partial, total: status == 206 ? offset + length : length,
                                           written: offset, folder: folder, for: destination) {
                return TransferError(kind: .permanent, code: DiskSpace.failureCode, message: shortfall)
            }
            // A large body is hashed while it arrives (see `FileDigest.Follower`).
            if status < 300, (length.map { $0 + (resuming ? offset : 0) } ?? Int64.max) >= FileDigest.followThreshold {
                follower.update { if $0 == nil { $0 = FileDigest.Follower(path: partial, chunks: written) } }
                inline?.stop()
            }
            // Committed before the first byte lands, so the partial's provenance is known.
            // Skipped for small bodies: a kill then costs a restart of at most
            // `resumableSize`, never a wrong byte, and small files need one commit, not two.
            guard let store, (length ?? Int64.max) > Self.resumableSize else { return nil }
            var r = started
            // The whole file's size, for `status` (percent) and `plan` (what a resume still
            // needs); the manifest's `size`, when given, was already recorded.
            if r.expectedSize == nil, let length { r.expectedSize = status == 206 ? offset + length : length }
            r.etag = headers["etag"] ?? (resuming ? started.etag : nil)
            r.lastModified = headers["last-modified"] ?? (resuming ? started.lastModified : nil)
            try? store.save(r)
            resumable.update { $0 = r }
            if let interval {
                flusher.update { task in
                    if task == nil { task = Task { await Self.flushPeriodically(fd, every: interval, record: resumable, store: store) } }
                }
            }
            return nil
        }
        let outcome: TransferOutcome
        do {
            outcome = try await transport.perform(request, progress: progress)
            await Self.stop(flusher.current)
        } catch {
            await Self.stop(flusher.current)
            follower.current?.cancel()
            close(fd)  // the partial file stays: a re-run may continue it
            if (resumeFrom == 0 && DownloadStart.size(of: partial) == 0) || error.code == Self.sizeMismatch {
                // Unless nothing arrived (a 404, a refused connection): an empty partial
                // continues nothing and would only litter the output folder. Nor does one
                // of a file whose length is not the manifest's.
                unlink(partial)
                record.partialPath = nil
            }
            // An interrupt (Ctrl-C) is no failure of the job's: `status` shows it pending
            // (or partial), not failed.
            if error.kind != .cancelled { record.lastError = "\(error.code): \(error.message)" }
            if resumeFrom > 0, error.httpStatus == 416 || TransferError.cannotContinue.contains(error.code) {
                // Not the complete entity (the engine turns that 416 into an outcome), or an
                // FTP/SFTP file that changed or shrank since: the partial cannot be
                // continued. It goes, and the retry starts from byte 0. A failure of the
                // runner's own, like a size mismatch: the next attempt is a different
                // request, so it is worth making (the engine's 416 is permanent).
                unlink(partial)
                record.partialPath = nil
                try? checkpoints?.save(merging: record)
                let why = error.httpStatus == 416 ? "the server cannot continue the partial file from byte \(resumeFrom)" : error.message
                throw JobFailure(kind: .transient, code: error.code,
                                 message: "\(why); it is discarded and the download starts over", httpStatus: error.httpStatus)
            }
            // A refresh that failed before a byte arrived leaves the finished record as it
            // was: the final file is still the verified one, and the next run asks again
            // with its validators (`recordFailure` adds the error to it).
            if record.partialPath != nil || previous?.phase != .done { try? checkpoints?.save(merging: record) }
            throw Self.failure(error, url: d.url, t)
        }
        // Kept open, and so locked, until the file is renamed into place or discarded:
        // another run must not start on this partial between our last check and the rename.
        defer { close(fd) }
        if outcome.status == 304 {
            unlink(partial)  // empty: a 304 has no body, and must never become the final file
            guard conditional, let prev = previous, let final = prev.finalPath else {
                throw JobFailure(kind: .permanent, code: "HTTP 304", message: "the server answered 304 Not Modified to an unconditional request")
            }
            try commit(prev, finishedFile: true)
            return AttemptResult(bytes: prev.bytes, destination: final, sha256: prev.sha256, httpStatus: 304, upToDate: true)
        }
        let total = outcome.resumed ? resumeFrom + outcome.bytesTransferred : outcome.bytesTransferred
        if let size = d.size, total != size {
            follower.current?.cancel()
            unlink(partial)
            throw JobFailure(kind: .transient, code: Self.sizeMismatch, message: "received \(total) bytes, the manifest says \(size)")
        }
        // The follower's digest holds unless the file was started over (a 200 to a Range).
        let followed = follower.current
        let rewritten = resumeFrom > 0 && !outcome.resumed
        if rewritten { followed?.cancel() }
        var known = rewritten ? nil : await followed?.finish(length: total)
        known = known ?? inline?.finish(length: total)
        let digest = if let known { known } else { try await FileDigest.sha256Async(ofFileAt: partial) }
        if let expected = d.sha256, digest != expected {
            // Text where data was expected is most often a login or error page sent with 200.
            let holds = ContentSniff.describe(fileAt: partial).map { "; it holds \($0)" } ?? ""
            unlink(partial)  // never appended to again: its bytes are wrong
            if mismatches.repeated(digest, for: job.id) {
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
        if !intoFolder, let done = previous, done.phase == .done, done.sha256 == digest, done.finalPath == d.to,
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
        var final = d.to
        if intoFolder {
            final = folder + FileNaming.name(contentDisposition: outcome.contentDisposition, finalURL: outcome.effectiveURL, jobID: job.id,
                                                     secrets: d.url.secretTexts)
            if let owner = claims.claim(final, for: job.id) {
                let whose = switch owner {
                case .job(let id): "which job \"\(id)\" also writes"
                case .manifest: "which is the manifest"
                }
                throw JobFailure(kind: .permanent, code: "name-taken",
                                 message: "the server named the file \(PathText.lastComponent(final)), \(whose)")
            }
            if let problem = DestinationCheck.problem(at: final, folderHint: "the server named the file after it") {
                throw DestinationCheck.failure(problem)
            }
            // A file there that this job did not write (the user's own, another tool's) is
            // never replaced by one the server named, as `curl -OJ` refuses to: its name
            // is the server's choice, not the manifest's.
            var there = stat()
            if stored?.finalPath != final, lstat(final, &there) == 0 {
                unlink(partial)
                throw JobFailure(kind: .permanent, code: "name-taken",
                                 message: "the server named the file \(PathText.lastComponent(final)), and \(final) is already there, not written by this job; "
                                     + "move it away, or give \"to\" a file name")
            }
        }
        // Recorded before the rename, so that no moment leaves a finished download without
        // a record: a run killed between the two leaves the journal line (adopted once its
        // file is in place, by size and SHA-256) and the complete partial, which the next run
        // moves into place (answered 416, see `DownloadStart`) instead of downloading again.
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
                folders.forget(folder)
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
        result.resumedFrom = outcome.resumed ? resumeFrom : 0
        return result
    }
}
