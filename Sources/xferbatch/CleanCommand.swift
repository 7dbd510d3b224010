import ArgumentParser
import Foundation
import XferArchive
import XferBatch

struct CleanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove the state folder (and, with --outputs, the files the jobs produced)."
    )

    @OptionGroup var options: ManifestOptions
    @OptionGroup var stateOptions: StateOptions

    @Flag(help: "Also delete the outputs recorded as done, and partial files.")
    var outputs = false

    func run() async throws {
        let plan = try options.loadPlan()
        let folder = stateOptions.folder(for: plan)
        guard FileManager.default.fileExists(atPath: folder) else {
            StandardStreams.write("nothing to clean: \(folder) does not exist\n")
            return
        }
        let lock = try await stateOptions.lock(for: plan)
        var deleted = 0
        if outputs {
            // The plan's own destinations (and their temporary names), plus what the
            // store recorded (names decided at run time).
            let written = plan.writtenPaths()
            var paths = Set(written.files)
            for record in try stateOptions.store(for: plan).all() {
                paths.formUnion([record.finalPath, record.partialPath].compactMap { $0 })
            }
            for path in paths.sorted() where unlink(path) == 0 { deleted += 1 }
            for folder in written.folders where FileManager.default.fileExists(atPath: folder) {
                FolderRemoval.remove(folder)
                deleted += 1
            }
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
        StandardStreams.write("removed \(folder)\(outputs ? " and \(deleted) output file\(deleted == 1 ? "" : "s")" : "")\n")
    }
}
