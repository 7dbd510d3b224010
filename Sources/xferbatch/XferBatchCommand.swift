import ArgumentParser
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
        subcommands: [ValidateCommand.self, PlanCommand.self]
    )
}
