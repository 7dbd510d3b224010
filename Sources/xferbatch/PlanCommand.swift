import ArgumentParser
import Foundation
import Logging
import XferBatch
import XferCurl

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Dry run: validate, order and explain what a run would do, touching nothing.",
        discussion: "Formats: text (waves, per-job settings and warnings), json (documented by schemas/plan.schema.json), dot (Graphviz) and mermaid."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, dot, mermaid
    }

    @OptionGroup var options: ManifestOptions
    @OptionGroup var selection: JobSelection
    @OptionGroup var stateOptions: StateOptions

    @Option(help: "Output format: text, json, dot or mermaid.")
    var format: Format = .text

    @Flag(help: "Indent JSON output.")
    var pretty = false

    @Flag(help: "Ask the servers the sizes the manifest does not give (a HEAD request per download a run would make), for the disk-space check; what they answer instead (a 404, no connection) is a warning. Writes nothing.")
    var probe = false

    func run() async throws {
        var plan = try selection.apply(to: options.load(stateFolder: stateOptions.state).plan)
        // The concurrency a run would use (it raises its open-file limit first).
        if let warning = OpenFileLimit.fit(&plan.limits, openFiles: OpenFileLimit.available()) {
            StandardStreams.writeError("xferbatch: warning: \(warning)\n")
        }
        // A run opens its state folder first; one it cannot create or use stops it (exit 4).
        if let refused = StateFolder(stateOptions.folder(for: plan)).startProblem() {
            StandardStreams.writeError("xferbatch: warning: a run would stop at once: \(refused) (--state DIR keeps the state elsewhere)\n")
        }
        // What a run would do: read from the state folder, if there is one (nothing is created).
        let store = try stateOptions.existingStore(for: plan)
        plan.forecast = RunForecast(plan: plan, store: store)
        if probe, let unsized = plan.forecast?.unsizedTransfers(in: plan), !unsized.isEmpty {
            let engine: TransferEngine
            do {
                engine = try TransferEngine(logger: Logger(label: "xferbatch"))
            } catch {
                StandardStreams.writeError("xferbatch: cannot start the transfer engine: \(error)\n")
                throw ExitCode(ExitStatus.jobsFailed.rawValue)
            }
            let answers = await SizeProbe(plan: plan, transport: engine, environment: ProcessInfo.processInfo.environment).answers(for: unsized)
            await engine.shutdown()
            plan.forecast = RunForecast(plan: plan, store: store, probes: answers)
        }
        switch format {
        case .text: StandardStreams.write(plan.text())
        case .json: plan.writeJSON(pretty: pretty) { StandardStreams.write($0) }
        case .dot: StandardStreams.write(plan.dot())
        case .mermaid: StandardStreams.write(plan.mermaid())
        }
        ProcessExit.skippingTeardown(of: plan)
    }
}
