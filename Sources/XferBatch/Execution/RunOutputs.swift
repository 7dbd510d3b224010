import Synchronization

/// Final paths of the jobs that succeeded so far in this run (job id -> path); archive
/// jobs read their inputs from it, because a download into a folder is named at run time.
final class RunOutputs: Sendable {
    private let paths = Mutex<[String: String]>([:])

    func record(_ path: String, for job: String) {
        paths.withLock { $0[job] = path }
    }

    func path(of job: String) -> String? {
        paths.withLock { $0[job] }
    }
}
