import Synchronization

/// Final paths chosen at run time (downloads into folders), so that two jobs landing on
/// the same name is an error for the later one, never an overwrite.
final class PathClaims: Sendable {
    private let claims = Mutex<[String: String]>([:])

    /// Claims `path` for `job`; returns the other job's id when it is taken.
    func claim(_ path: String, for job: String) -> String? {
        claims.withLock { c in
            if let owner = c[path], owner != job { return owner }
            c[path] = job
            return nil
        }
    }
}
