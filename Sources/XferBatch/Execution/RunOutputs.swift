import Synchronization

/// Final paths of the jobs that succeeded so far in this run (job id -> path), for the
/// jobs whose output another job reads: archive and extract jobs read their inputs from
/// it, because a download into a folder is named at run time.
///
/// Only those jobs' paths are kept: recording every job's took a dictionary entry per
/// finished job (2.1 M instructions and 160 page faults for 2,000 downloads that nothing
/// reads), and a run without archive or extract jobs records nothing at all.
final class RunOutputs: Sendable {
    private let paths = Mutex<[String: String]>([:])
    /// The ids of the jobs some other job names as an input.
    private let read: Set<String>

    init(plan: Plan) {
        read = Set(plan.jobs.lazy.flatMap { $0.inputs }.compactMap { if case .job(let id, _) = $0 { id } else { nil } })
    }

    /// Keeps `path` as `job`'s output if another job reads it.
    func record(_ path: String, for job: String) {
        guard read.contains(job) else { return }
        paths.withLock { $0[job] = path }
    }

    func path(of job: String) -> String? {
        paths.withLock { $0[job] }
    }
}
