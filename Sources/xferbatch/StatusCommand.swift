import ArgumentParser
import XferBatch

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each job's state from the state folder: done, partial, failed or pending."
    )

    @OptionGroup var options: ManifestOptions
    @OptionGroup var selection: JobSelection

    @OptionGroup var stateOptions: StateOptions

    @Flag(help: "Print JSON instead of text (schemas/status.schema.json).")
    var json = false

    func run() async throws {
        let whole = try options.loadPlan()
        let plan = try selection.apply(to: whole)
        let store = try stateOptions.existingStore(for: plan)
        let running = RunLock.holder(ofStateFolder: stateOptions.folder(for: plan))?.holder
        let rows = try JobStatus.all(plan: plan, store: store, runUnderWay: running != nil)
        // Records of jobs the manifest no longer has, judged against the whole manifest,
        // and only shown when every job is.
        let stale = selection.jobs.isEmpty ? try StaleRecord.all(plan: whole, store: store) : []
        if json {
            StandardStreams.write(JobStatus.json(rows, stale: stale, runUnderWay: running))
        } else {
            StandardStreams.write(JobStatus.text(rows, stale: stale, runUnderWay: running))
        }
    }
}
