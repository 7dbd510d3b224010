import ArgumentParser
import Foundation
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
        // Read only, with what a killed run's journal proves finished: cleaning up is what
        // a full disk needs, where the store cannot be opened for writing.
        let removed = Cleanup.remove(for: plan, recorded: try stateOptions.existingStore(for: plan).all(), outputs: outputs)
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
        StandardStreams.write(removed.text(stateFolder: folder) + "\n")
    }
}
