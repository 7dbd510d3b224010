import Synchronization

/// "Did you mean" for job ids a manifest names but no job has, for the first few of them.
///
/// Each hint compares the unknown id with every job's (`Suggestion`), so hinting at every
/// one of them takes time that grows with their number times the jobs': a generated
/// manifest of 20,000 jobs whose `dependsOn` were all misspelled took minutes to be refused
/// (2,000 such jobs: 2.9 s). Past `limit` hints the ids are most likely wrong in the same way
/// everywhere, and the problems are listed without one.
final class JobIDHints: Sendable {
    /// How many unknown ids get a hint in one manifest.
    static let limit = 20

    /// The manifest's ids (the planner's index, shared, not copied).
    private let indexByID: [String: Int]
    private let remaining = Mutex(JobIDHints.limit)

    init(indexByID: [String: Int]) {
        self.indexByID = indexByID
    }

    /// " (did you mean \"x\"?)", or "" when none is close or the hints are used up.
    func phrase(for id: String) -> String {
        let granted = remaining.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        return granted ? Suggestion.phrase(for: id, in: indexByID.keys) : ""
    }
}
