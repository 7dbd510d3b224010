import ArgumentParser
import Foundation
import XferArchive
import XferBatch
import XferCurl

@main
struct XferBatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xferbatch",
        abstract: "Run batches of file transfers described in a JSON manifest.",
        discussion: ExitStatus.helpText,
        // What ArgumentParser prints for `--version` is replaced by `fullVersion` (in `main`):
        // this string is built for every command line parsed, and naming libarchive's
        // version here would load libarchive in every run (see `LibArchive`).
        version: "xferbatch \(XferBatchVersion.current)",
        subcommands: [ValidateCommand.self, PlanCommand.self, RunCommand.self, StatusCommand.self, ResetCommand.self, CleanCommand.self]
    )

    /// The `--version` line: ours and the C libraries' versions, loaded for it if need be.
    static var fullVersion: String {
        "xferbatch \(XferBatchVersion.current) (libcurl \(CurlLibrary.version), libarchive \(ArchiveLibrary.version))"
    }

    /// Like the default entry point, but usage errors exit 2 (documented) rather than 64,
    /// `--wait-lock` may go without a value (see `WaitLockArgument`), a reader that goes
    /// away does not end the run (see `StandardStreams`), and `--version` names the C
    /// libraries (`fullVersion`).
    static func main() async {
        StandardStreams.ignoreBrokenPipes()
        do {
            var command = try parseAsRoot(WaitLockArgument.expanding(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .success, fullMessage(for: error) == configuration.version {
                StandardStreams.write(fullVersion + "\n")
                Foundation.exit(0)
            }
            if exitCode(for: error) == .validationFailure {
                StandardStreams.writeError(fullMessage(for: error) + "\n")
                Foundation.exit(ExitStatus.invalidInput.rawValue)
            }
            exit(withError: error)
        }
    }
}
