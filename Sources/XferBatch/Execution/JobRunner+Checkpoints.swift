import Foundation
import XferCurl

extension JobRunner {
    /// Every `interval`, flushes the partial file (`fdatasync`, on a thread of its own, off
    /// the transfer's path) and records the flushed length as `durableBytes`: what a resume
    /// after a reboot or power loss may trust. Only for resumable downloads (a record with
    /// a validator was saved at the response); ends when its task is cancelled. Its task holds
    /// `watch` until then, which `stop` awaits before the attempt ends.
    static func flushPeriodically(_ fd: Int32, every interval: Duration, watch: BodyWatch,
                                  store: any CheckpointStore) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            guard var r = watch.resumable.withLock({ $0 }) else { continue }
            var info = stat()
            guard fstat(fd, &info) == 0, Int64(info.st_size) > (r.durableBytes ?? 0) else { continue }
            let length = Int64(info.st_size)
            // Everything written before the call is on the disk when it returns.
            guard (try? await BlockingWork.run { _ in fdatasync(fd) == 0 }) == true, !Task.isCancelled else { continue }
            r.bytes = length
            r.durableBytes = length
            r.updatedAt = Date().timeIntervalSince1970
            try? store.save(r)
            watch.resumable.withLock { $0 = r }
        }
    }

    /// Ends the flusher and waits for it, so no flush touches the descriptor once closed.
    static func stop(_ flusher: Task<Void, Never>?) async {
        guard let flusher else { return }
        flusher.cancel()
        await flusher.value
    }

    /// Bodies up to this size are not worth a checkpoint before they complete.
    static let resumableSize: Int64 = 1 << 20

    /// The failure code of a download whose length is not the manifest's `size`.
    static let sizeMismatch = TransferError.sizeMismatch

    /// Records a failed attempt's error, so that `status` says what the run said, whatever
    /// the job and wherever it failed (before the transfer, during it, at verification).
    ///
    /// The stored record is kept (its partial and validators still decide a resume) and
    /// gains the error; without one, a `failed` record is made. An earlier success stays
    /// `done` when its output is still ours to trust (a download or an archive at its final
    /// path, untouched by the failed attempt), but an upload's becomes `failed`: what the
    /// server holds is no longer known to be the source. An interrupt is not a failure.
    func recordFailure(_ failure: JobFailure, of job: PlannedJob) {
        guard let checkpoints, failure.kind != .cancelled else { return }
        let fingerprint = JobFingerprint.of(job)
        let stored = (try? checkpoints.load(job.id)).flatMap { $0?.fingerprint == fingerprint ? $0 : nil }
        var record = stored ?? JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .failed)
        // A download's own failure path saved it already, with its partial.
        guard record.lastError != failure.description else { return }
        record.lastError = failure.description
        if record.phase == .done, job.kind == .upload { record.phase = .failed }
        record.updatedAt = Date().timeIntervalSince1970
        try? checkpoints.save(record)
    }

    /// After the run: a job whose attempt failed and that then was not retried (skipped by
    /// `--fail-fast` or a host given up on, or interrupted while it waited) gets `why`
    /// after that attempt's error, so that `status` says what the run's summary said
    /// (`HTTP 503: … (not retried: --fail-fast after a failed)`), not a plain failure.
    func recordNotRetried(_ job: PlannedJob, because why: String) {
        guard let checkpoints, let stored = (try? checkpoints.load(job.id)) ?? nil,
              let error = stored.lastError, stored.fingerprint == JobFingerprint.of(job) else { return }
        var record = stored
        record.lastError = "\(error) (\(why))"
        record.updatedAt = Date().timeIntervalSince1970
        try? checkpoints.save(record)
    }

    /// Saves a checkpoint the run relies on; failing to is a local error. A finished file
    /// may be committed with others (see `PreloadedCheckpointStore`).
    func commit(_ record: JobCheckpoint, finishedFile: Bool = false) throws {
        guard let checkpoints else { return }
        do {
            if finishedFile { try checkpoints.saveFinishedFile(record) } else { try checkpoints.save(record) }
        } catch {
            throw JobFailure(kind: .local, code: JobFailure.stateCode, message: "cannot record progress: \(error)")
        }
    }
}

extension CheckpointStore {
    /// Saves `record`, keeping the validators and the announced size already stored for it
    /// (from `onResponse`).
    func save(merging record: JobCheckpoint) throws {
        var merged = record
        if let stored = try load(record.jobID), stored.fingerprint == record.fingerprint {
            merged.etag = record.etag ?? stored.etag
            merged.lastModified = record.lastModified ?? stored.lastModified
            merged.expectedSize = record.expectedSize ?? stored.expectedSize
        }
        try save(merged)
    }
}
