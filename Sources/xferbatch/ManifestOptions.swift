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
    /// - Parameter stateFolder: `--state`, which no job may write into.
    func load(stateFolder: String? = nil) throws -> (plan: Plan, source: SourceText) {
        let environment = ProcessInfo.processInfo.environment
        do {
            let loaded = try ManifestLoader(environment: environment).load(path: manifest)
            return (try Planner(environment: environment).plan(loaded, stateFolder: stateFolder), loaded.source)
        } catch {
            StandardStreams.writeError("\(error)\n")
            throw ExitCode(ExitStatus.invalidInput.rawValue)
        }
    }
}
