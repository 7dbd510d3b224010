import ArgumentParser
import Foundation
import XferBatch

struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Forget jobs' recorded state and delete their partial files, so they start over."
    )

    @OptionGroup var options: ManifestOptions
    @OptionGroup var stateOptions: StateOptions

    @Argument(help: "Jobs to reset.")
    var jobs: [String] = []

    @Flag(help: "Reset every job.")
    var all = false

    func validate() throws {
        if jobs.isEmpty && !all { throw ValidationError("name the jobs to reset, or give --all") }
        if !jobs.isEmpty && all { throw ValidationError("give job ids or --all, not both") }
    }

    func run() async throws {
        let plan = try options.loadPlan()
        let ids = all ? plan.jobs.map(\.id) : jobs
        for id in ids where plan.job(id) == nil {
            StandardStreams.writeError("xferbatch: no job has the id \"\(id)\"\n")
            throw ExitCode(ExitStatus.invalidInput.rawValue)
        }
        let lock = try await stateOptions.lock(for: plan)
        let store = try stateOptions.writableStore(for: plan)
        var removed = 0
        for id in ids {
            if let partial = try store.load(id)?.partialPath, unlink(partial) == 0 { removed += 1 }
        }
        try store.remove(ids)
        StandardStreams.write("reset \(ids.count) job\(ids.count == 1 ? "" : "s"); deleted \(removed) partial file\(removed == 1 ? "" : "s")\n")
        withExtendedLifetime(lock) {}
    }
}
