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
        version: "xferbatch \(XferBatchVersion.current) (libcurl \(CurlLibrary.version), libarchive \(ArchiveLibrary.version))",
        subcommands: [ValidateCommand.self, PlanCommand.self, RunCommand.self, StatusCommand.self, ResetCommand.self, CleanCommand.self]
    )

    /// Like the default entry point, but usage errors exit 2 (documented) rather than 64,
    /// `--wait-lock` may go without a value (see `WaitLockArgument`), and a reader that
    /// goes away does not end the run (see `StandardStreams`).
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
            if exitCode(for: error) == .validationFailure {
                StandardStreams.writeError(fullMessage(for: error) + "\n")
                Foundation.exit(ExitStatus.invalidInput.rawValue)
            }
            exit(withError: error)
        }
    }
}
