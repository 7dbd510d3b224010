/// Finished downloads and uploads recorded under an id the manifest no longer has, by the
/// id of the job that is the same work now: a job renamed (`linux` -> `kernel`).
///
/// Why: a transfer's fingerprint leaves its id out (URL, destination or source, checksum,
/// headers), so the renamed job is the same work; without this its record was stale, the
/// job had none, and the file already in place was fetched again (or, with a `sha256`,
/// read whole to be adopted), and an upload was sent again. Only finished records are
/// taken over, and the run checks them as usual (the file as recorded, the source's
/// stamp): a partial's name may carry the old id. Archives and extractions are left to
/// rebuild: their work is local, and their inputs name other jobs' ids. Decided once,
/// from the store (read only, shared by `run`, `plan` and `status`); the run saves the
/// record under the new id, after which `reset --stale` forgets the old one.
public struct RenamedJobs: Sendable {
    /// New job id -> the record its old id left, under the new id. A fingerprint holds the
    /// job's kind, so a download's record never goes to an upload.
    public private(set) var records: [String: JobCheckpoint] = [:]
    /// The old ids whose records are taken over: not stale while that is so (`status`
    /// does not list them, `reset --stale` does not forget them before the run).
    public private(set) var takenOver: Set<String> = []

    public init() {}

    public init(plan: Plan, store: any CheckpointStore) {
        // The usual case costs a lookup per job: every download has its record (a nightly
        // re-run), or the store is empty (a first run). Indices, not copies of the jobs.
        let unrecorded = plan.jobs.indices.filter { j in
            guard plan.jobs[j].kind == .download || plan.jobs[j].kind == .upload else { return false }
            return ((try? store.load(plan.jobs[j].id)) ?? nil) == nil
        }
        guard !unrecorded.isEmpty, let all = try? store.all(), !all.isEmpty else { return }
        let ids = Set(plan.jobs.map(\.id))
        var byFingerprint: [String: JobCheckpoint] = [:]
        for record in all where !ids.contains(record.jobID) && record.phase == .done {
            // Renamed twice without a reset: the newest record is the file in place.
            if let other = byFingerprint[record.fingerprint], other.updatedAt >= record.updatedAt { continue }
            byFingerprint[record.fingerprint] = record
        }
        guard !byFingerprint.isEmpty else { return }
        for j in unrecorded {
            let job = plan.jobs[j]
            guard var old = byFingerprint[JobFingerprint.of(job)] else { continue }
            takenOver.insert(old.jobID)
            old.jobID = job.id
            records[job.id] = old
        }
    }
}
