import Foundation
import Testing
@testable import XferBatch

/// How a report reaches its path: whole, through a temporary name of its own.
@Suite("Report files")
struct ReportFileTests {
    @Test func aLinkAtTheTemporaryNameIsReplacedNotWrittenThrough() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = folder + "/victim"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        // The name a report to `report.json` is first written under, by this process.
        try FileManager.default.createSymbolicLink(atPath: folder + "/report.json.xferbatch-\(getpid())", withDestinationPath: victim)
        #expect(ReportFile.write(Array("{}".utf8), to: folder + "/report.json") == nil)
        #expect(FileManager.default.contents(atPath: folder + "/report.json") == Data("{}".utf8))
        #expect(FileManager.default.contents(atPath: victim) == Data("precious".utf8))
        #expect(FileManager.default.fileExists(atPath: folder + "/report.json.xferbatch-\(getpid())") == false)
    }
}
