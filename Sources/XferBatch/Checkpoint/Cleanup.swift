import Foundation
import XferArchive

/// What `xferbatch clean` deletes besides the state folder, and the count it reports.
///
/// Partial files go in any case: a later run could not resume them without the
/// validators the state folder records, and would start them over. Outputs go only when
/// asked (`--outputs`), with the folders they leave empty inside the output folder (a run
/// made them: `"to": "sub/a.txt"`); a folder holding anything else stays, and so does the
/// output folder itself.
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
        for folder in written.folders where FileManager.default.fileExists(atPath: folder) {
            FolderRemoval.remove(folder)
            done.extractedFolders += 1
        }
        for path in outputFiles.union(written.folders) { removeEmptyFolders(above: path, below: plan.outputDirectory) }
        return done
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
