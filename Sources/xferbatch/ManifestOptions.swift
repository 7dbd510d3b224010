import ArgumentParser
import Foundation
import XferBatch

/// The manifest argument shared by every command, and its loading with exit code 2 on errors.
struct ManifestOptions: ParsableArguments {
    @Argument(help: "Path of the manifest (JSON, format version 1), or - for standard input.")
    var manifest: String

    /// Loads and plans the manifest; prints every problem to stderr and exits 2 on failure.
    func loadPlan() throws -> Plan {
        try load().plan
    }

    /// The plan and the manifest's bytes as read (standard input can be read only once).
    /// - Parameters:
    ///   - stateFolder: `--state`, which no job may write into.
    ///   - jobs: job ids named on the command line: the plan keeps them and what they
    ///     depend on (`Plan.selecting`); empty: every job.
    func load(stateFolder: String? = nil, selecting jobs: [String] = []) throws -> (plan: Plan, source: SourceText) {
        let environment = ProcessInfo.processInfo.environment
        do {
            let loaded = try ManifestLoader(environment: environment).load(path: manifest)
            let plan = try Planner(environment: environment).plan(loaded, stateFolder: stateFolder)
            return (try select(jobs, from: plan), loaded.source)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardStreams.writeError("\(error)\n")
            throw ExitCode(ExitStatus.invalidInput.rawValue)
        }
    }

    /// `plan` reduced to `jobs` and what they depend on (`Plan.selecting`), or whole when
    /// none are named; an unknown id is said on stderr and exits 2.
    func select(_ jobs: [String], from plan: Plan) throws -> Plan {
        guard !jobs.isEmpty else { return plan }
        do {
            return try plan.selecting(jobs)
        } catch {
            StandardStreams.writeError("\(error)\n")
            throw ExitCode(ExitStatus.invalidInput.rawValue)
        }
    }
}
