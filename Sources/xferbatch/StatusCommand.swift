import ArgumentParser
import XferBatch

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each job's state from the state folder: done, partial, failed or pending."
    )

    @OptionGroup var options: ManifestOptions
    @OptionGroup var stateOptions: StateOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let plan = try options.loadPlan()
        let rows = try JobStatus.all(plan: plan, store: stateOptions.existingStore(for: plan))
        if json {
            StandardStreams.write(JobStatus.json(rows))
        } else {
            StandardStreams.write(JobStatus.text(rows))
        }
    }
}
