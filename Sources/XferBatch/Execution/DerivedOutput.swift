import Foundation

/// The checkpoint side of archive and extract jobs, whose output is derived from files on
/// disk: redone only when an input changed.
///
/// "Changed" is read from a digest of the inputs' names, sizes and modification times
/// (stored in the checkpoint's `etag` field): cheap for gigabytes of inputs, and a
/// refreshed download is a new file with a new time. Content edited in place within the
/// same second and size would go unnoticed; no job of ours does that.
struct DerivedOutput {
    let job: PlannedJob
    let checkpoints: (any CheckpointStore)?
    let fingerprint: String
    let inputs: String

    /// `files`: name (as it appears in the output) and path of each input.
    init(job: PlannedJob, files: [(name: String, path: String)], checkpoints: (any CheckpointStore)?) {
        self.job = job
        self.checkpoints = checkpoints
        self.fingerprint = JobFingerprint.of(job)
        self.inputs = FileDigest.sha256(ofText: files.map { file in
            let info = try? FileManager.default.attributesOfItem(atPath: file.path)
            let size = (info?[.size] as? NSNumber)?.int64Value ?? -1
            let mtime = (info?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(file.name)\u{1F}\(size)\u{1F}\(mtime)"
        }.joined(separator: "\n"))
    }

    /// The previous run's result when the job and its inputs are unchanged and the output
    /// is still there (`stillThere` checks it).
    func upToDate(stillThere: (JobCheckpoint, String) -> Bool) -> AttemptResult? {
        guard let previous = try? checkpoints?.load(job.id), previous.fingerprint == fingerprint, previous.phase == .done,
              previous.etag == inputs, let path = previous.finalPath, stillThere(previous, path) else { return nil }
        return AttemptResult(bytes: previous.bytes, destination: path, sha256: previous.sha256, httpStatus: nil, upToDate: true)
    }

    /// Records the output as done for these inputs; `file`: it is one file with its
    /// SHA-256 (an archive), which the store may commit with others.
    func record(_ result: AttemptResult, file: Bool) throws {
        let record = JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .done, attempts: 1, bytes: result.bytes,
                                   etag: inputs, finalPath: result.destination, sha256: result.sha256,
                                   updatedAt: Date().timeIntervalSince1970)
        if file { try checkpoints?.saveFinishedFile(record) } else { try checkpoints?.save(record) }
    }
}
