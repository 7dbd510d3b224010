import ArgumentParser
import Foundation
import XferArchive
import XferBatch

struct CleanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove the state folder and partial files (and, with --outputs, the files the jobs produced).",
        discussion: """
            Partial files go with the state folder in any case: a later run could not resume \
            them without the validators recorded there, and would start them over.
            """
    )

    @OptionGroup var options: ManifestOptions
    @OptionGroup var stateOptions: StateOptions

    @Flag(help: "Also delete the outputs: files recorded as done, and the plan's destinations.")
    var outputs = false

    func run() async throws {
        let plan = try options.loadPlan()
        let folder = stateOptions.folder(for: plan)
        guard FileManager.default.fileExists(atPath: folder) else {
            StandardStreams.write("nothing to clean: \(folder) does not exist\n")
            return
        }
        let lock = try await stateOptions.lock(for: plan)
        // The plan's own names, plus what the store recorded: names decided at run time, and
        // partials of jobs edited or removed since.
        let written = plan.writtenPaths()
        var partials = Set(written.partials)
        var outputFiles = Set(written.outputs)
        for record in try stateOptions.store(for: plan).all() {
            if let partial = record.partialPath { partials.insert(partial) }
            if let final = record.finalPath { outputFiles.insert(final) }
        }
        let deletedPartials = partials.sorted().filter { unlink($0) == 0 }.count
        for staging in written.stagingFolders where FileManager.default.fileExists(atPath: staging) { FolderRemoval.remove(staging) }
        var deletedFiles = 0, deletedFolders = 0
        if outputs {
            for path in outputFiles.sorted() where unlink(path) == 0 { deletedFiles += 1 }
            for folder in written.folders where FileManager.default.fileExists(atPath: folder) {
                FolderRemoval.remove(folder)
                deletedFolders += 1
            }
            for path in outputFiles.union(written.folders) { Self.removeEmptyFolders(above: path, below: plan.outputDirectory) }
        }
        do {
            // Removed while the lock is held, so that no run starts in a folder being deleted.
            try withExtendedLifetime(lock) { () throws(StateFolder.RemovalError) in try StateFolder(folder).remove() }
        } catch {
            StandardStreams.writeError("xferbatch: \(error)\n")
            throw ExitCode(ExitStatus.jobsFailed.rawValue)
        }
        if stateOptions.state == nil {
            // The folder that holds every manifest's state goes once the last one is gone.
            rmdir(plan.directory + "/" + Plan.stateFolderName)
        }
        var removed = ["removed \(folder)"]
        if deletedPartials > 0 { removed.append("\(deletedPartials) partial file\(deletedPartials == 1 ? "" : "s")") }
        if outputs { removed.append("\(deletedFiles) output file\(deletedFiles == 1 ? "" : "s")") }
        if deletedFolders > 0 { removed.append("\(deletedFolders) extracted folder\(deletedFolders == 1 ? "" : "s")") }
        let last = removed.removeLast()
        StandardStreams.write((removed.isEmpty ? last : removed.joined(separator: ", ") + " and " + last) + "\n")
    }

    /// Removes the folders holding `path` that are now empty (a run created them for its
    /// outputs: `"to": "sub/a.txt"`), up to but not including `root`, the output folder.
    /// `rmdir` removes only an empty folder, so one holding anything else stays.
    static func removeEmptyFolders(above path: String, below root: String) {
        var folder = (path.hasSuffix("/") ? String(path.dropLast()) : path).deletingLastPathComponent
        while folder.hasPrefix(root + "/"), rmdir(folder) == 0 {
            folder = folder.deletingLastPathComponent
        }
    }
}

private extension String {
    var deletingLastPathComponent: String {
        guard let slash = lastIndex(of: "/") else { return "" }
        return String(self[..<slash])
    }
}
