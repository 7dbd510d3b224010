import Foundation
import Synchronization

/// Folders this run has already created or found, so that each is made once, not once
/// per download (creating them was a few percent of a run of small files).
final class KnownFolders: Sendable {
    private let known = Mutex<Set<String>>([])

    /// Creates `folder` (and its parents) unless this run already did.
    func ensure(_ folder: String) throws(JobFailure) {
        if known.withLock({ $0.contains(folder) }) { return }
        do {
            try Folders.create(folder)
        } catch {
            throw JobFailure(error)
        }
        known.withLock { _ = $0.insert(folder) }
    }

    /// Forgets `folder` and every folder inside it: removed since this run made them (a
    /// cleanup job, `rm -rf out` during a run), they are created again when next needed.
    func forget(_ folder: String) {
        known.withLock { set in set = set.filter { !PathText.isWithin($0, folder: folder) } }
    }
}
