import Foundation

/// The checkpoint side of archive and extract jobs, whose output is derived from files on
/// disk: redone only when an input changed.
///
/// "Changed" is read from a digest of the inputs' names, sizes, inode numbers and
/// modification times (`FileStamp.inputs`, stored in the checkpoint's `etag` field): cheap
/// for gigabytes of inputs.
struct DerivedOutput {
    let job: PlannedJob
    let checkpoints: (any CheckpointStore)?
    let fingerprint: String
    let inputs: String
    /// Sum of the inputs' sizes (read once, here), for progress.
    let inputBytes: Int64

    /// `files`: name (as it appears in the output) and path of each input.
    init(job: PlannedJob, files: [(name: String, path: String)], checkpoints: (any CheckpointStore)?) {
        self.job = job
        self.checkpoints = checkpoints
        self.fingerprint = JobFingerprint.of(job)
        (self.inputs, self.inputBytes) = FileStamp.inputs(files)
    }

    /// The previous run's result when the job and its inputs are unchanged and the output
    /// is still there (`stillThere` checks it).
    func upToDate(stillThere: (JobCheckpoint, String) -> Bool) -> AttemptResult? {
        guard let previous = try? checkpoints?.load(job.id), previous.fingerprint == fingerprint, previous.phase == .done,
              previous.etag == inputs, let path = previous.finalPath, stillThere(previous, path) else { return nil }
        return AttemptResult(bytes: previous.bytes, destination: path, sha256: previous.sha256, httpStatus: nil, upToDate: true)
    }

    /// Records the output as done for these inputs; `file`: it is one file with its
    /// SHA-256 and modification time (an archive), which the store may commit with others.
    func record(_ result: AttemptResult, file: Bool) throws {
        let record = JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .done, attempts: 1, bytes: result.bytes,
                                   etag: inputs, finalPath: result.destination, sha256: result.sha256,
                                   updatedAt: Date().timeIntervalSince1970,
                                   finalModified: file ? FileStamp.of(result.destination)?.modified : nil)
        if file { try checkpoints?.saveFinishedFile(record) } else { try checkpoints?.save(record) }
    }
}
