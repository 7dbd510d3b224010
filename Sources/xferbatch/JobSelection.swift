import ArgumentParser
import XferBatch

/// Job ids named after the manifest (`run`, `plan`, `status`): those jobs and every job
/// they depend on, as `make TARGET` builds a target and what it needs.
struct JobSelection: ParsableArguments {
    @Argument(help: ArgumentHelp("Jobs to take, with every job they depend on; none: all of them.", valueName: "job"))
    var jobs: [String] = []

    /// `plan` reduced to the jobs named (`Plan.selecting`), or whole when none are; an
    /// unknown id is said on stderr and exits 2.
    func apply(to plan: Plan) throws -> Plan {
        guard !jobs.isEmpty else { return plan }
        do {
            return try plan.selecting(jobs)
        } catch {
            StandardStreams.writeError("\(error)\n")
            throw ExitCode(ExitStatus.invalidInput.rawValue)
        }
    }
}
