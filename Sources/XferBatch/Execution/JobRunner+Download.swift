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
    ///
    /// The steps, each in a file of its own: `begin` (how it starts), `openPartial`,
    /// `responseCheck` (before the body), then `finish` (verified, into place) or
    /// `failure(of:)` (what stays for a re-run).
    func download(_ job: PlannedJob, _ d: Download, progress: TransferProgress, began: StartAnnouncement) async throws -> AttemptResult {
        guard let t = job.transfer else { throw JobFailure(kind: .permanent, code: "plan", message: "no transfer settings") }
        let fingerprint = JobFingerprint.of(job)
        let stored = ((try? checkpoints?.load(job.id)) ?? nil) ?? renamed.records[job.id]
        let applies = stored?.fingerprint == fingerprint ? stored : nil
        // Packed into a standing archive that removed it (see `PackedSources`): its content
        // is there, and fetching it again would only make the archive be rebuilt.
        if packed.sources[job.id] != nil, let done = applies, let final = done.finalPath {
            return AttemptResult(bytes: done.bytes, destination: final, sha256: done.sha256, httpStatus: nil, upToDate: true)
        }
        let partial = d.partialPath(jobID: job.id)
        let (start, previous) = try await begin(job, d, partial: partial, fingerprint: fingerprint, previous: applies)
        var resumeFrom: Int64 = 0
        var ifRange: String? = nil
        var conditional = false
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
        let attempt = DownloadAttempt(jobID: job.id, download: d, fingerprint: fingerprint, stored: stored, previous: previous,
                                      partial: partial, resumeFrom: resumeFrom, ifRange: ifRange, conditional: conditional)
        began(resumeFrom: resumeFrom)
        // Whatever this attempt admits is released when it ends: done, its bytes are in
        // the free space figure; failed, they are no longer promised.
        defer { space.release(job.id) }
        let fd = try openPartial(attempt)

        let record = JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .running, attempts: (previous?.attempts ?? 0) + 1,
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
        // A body from byte 0 is hashed as it is written, unless it is large enough for a
        // follower; the record and its periodic flushes start only for a resumable body,
        // so a small file costs no timer.
        let watch = BodyWatch(fromByteZero: resumeFrom == 0)
        request.writtenChunks = watch.written
        if let inline = watch.inline { request.onBodyWritten = { inline.update($0) } }
        request.maxFileSize = d.size
        request.onResponse = responseCheck(attempt, started: record, descriptor: fd, watch: watch)
        let outcome: TransferOutcome
        do {
            outcome = try await transport.perform(request, progress: progress)
            await Self.stop(watch.flusher.withLock { $0 })
        } catch {
            await Self.stop(watch.flusher.withLock { $0 })
            watch.follower.withLock { $0 }?.cancel()
            close(fd)  // the partial file stays: a re-run may continue it
            throw failure(of: error, attempt, record: record, settings: t)
        }
        // Kept open, and so locked, until the file is renamed into place or discarded:
        // another run must not start on this partial between our last check and the rename.
        defer { close(fd) }
        return try await finish(outcome, attempt, record: record, descriptor: fd, watch: watch)
    }
}
