import Foundation

extension JobRunner {
    /// Every `interval`, flushes the partial file (`fdatasync`, on a thread of its own, off
    /// the transfer's path) and records the flushed length as `durableBytes`: what a resume
    /// after a reboot or power loss may trust. Only for resumable downloads (a record with
    /// a validator was saved at the response); ends when its task is cancelled.
    static func flushPeriodically(_ fd: Int32, every interval: Duration, record: Slot<JobCheckpoint?>,
                                  store: any CheckpointStore) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            guard var r = record.current else { continue }
            var info = stat()
            guard fstat(fd, &info) == 0, Int64(info.st_size) > (r.durableBytes ?? 0) else { continue }
            let length = Int64(info.st_size)
            // Everything written before the call is on the disk when it returns.
            guard (try? await BlockingWork.run { _ in fdatasync(fd) == 0 }) == true, !Task.isCancelled else { continue }
            r.bytes = length
            r.durableBytes = length
            r.updatedAt = Date().timeIntervalSince1970
            try? store.save(r)
            record.update { $0 = r }
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

    /// Saves a checkpoint the run relies on; failing to is a local error. A finished file
    /// may be committed with others (see `PreloadedCheckpointStore`).
    func commit(_ record: JobCheckpoint, finishedFile: Bool = false) throws {
        guard let checkpoints else { return }
        do {
            if finishedFile { try checkpoints.saveFinishedFile(record) } else { try checkpoints.save(record) }
        } catch {
            throw JobFailure(kind: .local, code: "state", message: "cannot record progress: \(error)")
        }
    }
}

extension CheckpointStore {
    /// Saves `record`, keeping validators already stored for it (from `onResponse`).
    func save(merging record: JobCheckpoint) throws {
        var merged = record
        if let stored = try load(record.jobID), stored.fingerprint == record.fingerprint {
            merged.etag = record.etag ?? stored.etag
            merged.lastModified = record.lastModified ?? stored.lastModified
        }
        try save(merged)
    }
}
