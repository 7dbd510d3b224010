import Foundation
import Synchronization

/// Folders this run has already created or found, so that each is made once, not once
/// per download (creating them was a few percent of a run of small files); and those it
/// made, so that the ones left empty (their download failed) go at the end of the run.
final class KnownFolders: Sendable {
    private let known = Mutex<Set<String>>([])
    private let made = Mutex<[String]>([])

    /// Creates `folder` (and its parents) unless this run already did.
    func ensure(_ folder: String) throws(JobFailure) {
        if known.withLock({ $0.contains(folder) }) { return }
        do {
            let created = try Folders.create(folder)
            if !created.isEmpty { made.withLock { $0 += created } }
        } catch {
            throw JobFailure(error)
        }
        known.withLock { _ = $0.insert(folder) }
    }

    /// Removes the folders this run made that are empty, deepest first, so that a download
    /// that failed (`"to": "deep/a/b.txt"`, a 404) leaves no `deep/a/` behind, as a run that
    /// never began would not. Only when no job runs any more: a job of this run may be
    /// about to write in one. `rmdir` removes only an empty folder; a partial file kept for
    /// a resume keeps its folder.
    func removeEmptyMade() {
        let folders = made.withLock { folders in
            defer { folders.removeAll() }
            return folders
        }
        for folder in folders.sorted(by: { $0.count > $1.count }) { _ = rmdir(folder) }
    }

    /// Forgets `folder` and every folder inside it: removed since this run made them (a
    /// cleanup job, `rm -rf out` during a run), they are created again when next needed.
    func forget(_ folder: String) {
        known.withLock { set in set = set.filter { !PathText.isWithin($0, folder: folder) } }
    }
}
