import Foundation
import XferArchive

/// What `xferbatch clean` deletes besides the state folder, and the count it reports.
///
/// Partial files go in any case: a later run could not resume them without the
/// validators the state folder records, and would start them over. Outputs go only when
/// asked (`--outputs`), with the folders they leave empty inside the output folder (a run
/// made them: `"to": "sub/a.txt"`); a folder holding anything else stays, and so does the
/// output folder itself. An extraction folder goes only when its job is recorded as having
/// extracted into it (`JobCheckpoint.hasExtracted`).
public struct Cleanup: Sendable, Equatable {
    public var partials = 0
    public var outputFiles = 0
    public var extractedFolders = 0
    /// Whether outputs were asked for (the message then counts them, even when none).
    public var outputs = false

    /// Deletes `plan`'s partial files and extraction staging folders, and with `outputs` its
    /// output files and extracted folders. `recorded`: the store's records, which name what
    /// the plan cannot (a file named by the server at run time, the partial of a job
    /// edited or removed since).
    public static func remove(for plan: Plan, recorded: [JobCheckpoint], outputs: Bool) -> Cleanup {
        let written = plan.writtenPaths()
        var partials = Set(written.partials)
        var outputFiles = Set(written.outputs)
        for record in recorded {
            if let partial = record.partialPath { partials.insert(partial) }
            if let final = record.finalPath { outputFiles.insert(final) }
        }
        var done = Cleanup(outputs: outputs)
        done.partials = partials.sorted().filter { unlink($0) == 0 }.count
        for staging in written.stagingFolders where FileManager.default.fileExists(atPath: staging) { FolderRemoval.remove(staging) }
        guard outputs else { return done }
        done.outputFiles = outputFiles.sorted().filter { unlink($0) == 0 }.count
        let extracted = ownExtractionFolders(of: plan, recorded: recorded)
        for folder in extracted.sorted() where FileManager.default.fileExists(atPath: folder) {
            FolderRemoval.remove(folder)
            done.extractedFolders += 1
        }
        for path in outputFiles.union(extracted) { removeEmptyFolders(above: path, below: plan.outputDirectory) }
        return done
    }

    /// The plan's extraction folders that a record says their job filled. Any other is
    /// kept with all it holds: a job that never extracted there (it failed: the folder held
    /// the user's files, which the extraction refused to delete; or it never ran) has
    /// nothing of its own in it, and the state folder that would say so may be gone.
    static func ownExtractionFolders(of plan: Plan, recorded: [JobCheckpoint]) -> Set<String> {
        let records = Dictionary(recorded.map { ($0.jobID, $0) }, uniquingKeysWith: { first, _ in first })
        var folders = Set<String>()
        for job in plan.jobs {
            if case .extract(let e) = job.action, records[job.id]?.hasExtracted(e) == true { folders.insert(e.folder) }
        }
        return folders
    }

    /// `removed FOLDER, 2 partial files, 3 output files and 1 extracted folder`.
    public func text(stateFolder: String) -> String {
        var removed = ["removed \(stateFolder)"]
        if partials > 0 { removed.append(Self.count(partials, "partial file")) }
        if outputs { removed.append(Self.count(outputFiles, "output file")) }
        if extractedFolders > 0 { removed.append(Self.count(extractedFolders, "extracted folder")) }
        let last = removed.removeLast()
        return removed.isEmpty ? last : removed.joined(separator: ", ") + " and " + last
    }

    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// Removes the folders holding `path` that are now empty, up to but not including
    /// `root`. `rmdir` removes only an empty folder, so the first that holds anything ends it.
    static func removeEmptyFolders(above path: String, below root: String) {
        var folder = PathText.parent(path.hasSuffix("/") ? String(path.dropLast()) : path)
        while folder.hasPrefix(root + "/"), rmdir(folder) == 0 {
            folder = PathText.parent(folder)
        }
    }
}
