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

    @Argument(help: "Jobs to reset (also ids no longer in the manifest, while their records remain).")
    var jobs: [String] = []

    @Flag(help: "Reset every job of the manifest.")
    var all = false

    @Flag(help: "Forget the records of jobs no longer in the manifest, and delete their partial files.")
    var stale = false

    func validate() throws {
        if jobs.isEmpty && !all && !stale { throw ValidationError("name the jobs to reset, or give --all or --stale") }
        if !jobs.isEmpty && all { throw ValidationError("give job ids or --all, not both") }
    }

    func run() async throws {
        let plan = try options.loadPlan()
        // Ids the manifest does not have must have a record, checked read-only: a typo
        // creates no state folder.
        let unknown = jobs.filter { plan.job($0) == nil }
        if !unknown.isEmpty {
            let recorded = try stateOptions.existingStore(for: plan)
            for id in unknown where try recorded.load(id) == nil {
                StandardStreams.writeError("xferbatch: no job has the id \"\(id)\", in the manifest or in the state folder\n")
                throw ExitCode(ExitStatus.invalidInput.rawValue)
            }
        }
        let lock = try await stateOptions.lock(for: plan)
        let recorded = try stateOptions.existingStore(for: plan)
        var ids = all ? plan.jobs.map(\.id) : jobs
        if stale {
            let named = Set(ids)
            ids += try StaleRecord.all(plan: plan, store: recorded).map(\.id).filter { !named.contains($0) }
        }
        let reset = try Reset.run(ids, recorded: recorded) { try stateOptions.writableStore(for: plan) }
        StandardStreams.write(reset.text)
        withExtendedLifetime(lock) {}
    }
}
