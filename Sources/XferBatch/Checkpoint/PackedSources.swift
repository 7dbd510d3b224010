import Foundation

/// Downloads whose files an archive job with `removeSources` packed and then deleted, when
/// that archive still stands: done by a run of this definition, its file as recorded.
///
/// Without this, every re-run found those downloads' files missing and fetched them again,
/// and then rebuilt the archive: a nightly "download, pack, keep only the archive" never
/// settled. Decided for a whole archive at once, from the store and the disk (read only,
/// shared by `run` and `plan`), so that an archive is either left as it is with all of its
/// sources, or rebuilt from sources that are all fetched again:
/// - the archive's record is done with this job's fingerprint, at `to`, and the file there
///   has the recorded size and modification time;
/// - every input named by job id is a download with `refresh: never`, done with its own
///   fingerprint, whose file is gone, and which no other job depends on;
/// - every path input matches nothing now (its files went into the archive).
/// A download of another kind (an edited job, a file put back) makes the group start over.
public struct PackedSources: Sendable {
    /// Archive job ids whose last build stands.
    public private(set) var archives: Set<String> = []
    /// Download job id -> the archive file holding its content.
    public private(set) var sources: [String: String] = [:]

    public init() {}

    public init(plan: Plan, store: any CheckpointStore) {
        let candidates = plan.jobs.filter { if case .archive(let a) = $0.action { a.removeSources } else { false } }
        guard !candidates.isEmpty else { return }
        var indexByID: [String: Int] = [:]
        for job in plan.jobs { indexByID[job.id] = job.index }
        for job in candidates {
            guard case .archive(let a) = job.action, let record = Self.done(job, in: store),
                  record.finalPath == a.to, record.describesFile(at: a.to) else { continue }
            var packed: [String] = []
            let settled = job.inputs.allSatisfy { input in
                switch input {
                case .path(let pattern):
                    guard let files = try? ArchiveInputs.files(of: pattern, excluding: a.to, skipping: plan.runFolders, besides: job.packedPaths) else { return false }
                    return files.allSatisfy { FileStamp.of($0) == nil }
                case .job(let id, let path):
                    guard let index = indexByID[id] else { return false }
                    let source = plan.jobs[index]
                    guard case .download(let d) = source.action, d.refresh == .never, plan.graph.dependents[index] == [job.index],
                          let done = Self.done(source, in: store), let final = done.finalPath, final == path || d.namesFileAtRunTime,
                          FileStamp.of(final) == nil else { return false }
                    packed.append(id)
                    return true
                }
            }
            guard settled else { continue }
            archives.insert(job.id)
            for id in packed { sources[id] = a.to }
        }
    }

    /// The job's record when it is done with the job's current definition.
    private static func done(_ job: PlannedJob, in store: any CheckpointStore) -> JobCheckpoint? {
        guard let record = (try? store.load(job.id)) ?? nil, record.phase == .done,
              record.fingerprint == JobFingerprint.of(job) else { return nil }
        return record
    }
}
