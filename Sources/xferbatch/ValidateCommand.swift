import ArgumentParser
import XferBatch

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a manifest and print a one-line summary, or every problem found.",
        discussion: "Problems are printed one per line as FILE:LINE:COL: json.path: message; the exit code is then 2."
    )

    @OptionGroup var options: ManifestOptions

    func run() throws {
        let plan = try options.loadPlan()
        let counts = JobKind.allCases.filter { plan.count($0) > 0 }.map { "\(plan.count($0)) \($0.rawValue)\(plan.count($0) == 1 ? "" : "s")" }
        StandardStreams.write("ok: \(plan.jobs.count) job\(plan.jobs.count == 1 ? "" : "s") (\(counts.joined(separator: ", ")))\n")
        ProcessExit.skippingTeardown(of: plan)
    }
}
