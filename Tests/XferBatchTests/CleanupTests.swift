import Foundation
import Testing
@testable import XferBatch

@Suite("clean")
struct CleanupTests {
    @Test func theMessageCountsWhatWentAndOutputFilesOnlyWhenAskedFor() {
        #expect(Cleanup().text(stateFolder: "s") == "removed s")
        #expect(Cleanup(partials: 1).text(stateFolder: "s") == "removed s and 1 partial file")
        #expect(Cleanup(outputs: true).text(stateFolder: "s") == "removed s and 0 output files")
        #expect(Cleanup(partials: 2, outputFiles: 3, extractedFolders: 1, outputs: true).text(stateFolder: "s")
                == "removed s, 2 partial files, 3 output files and 1 extracted folder")
    }

    /// Folders go up to the first that holds something else, and never the root.
    @Test func emptyFoldersGoUpToTheFirstThatHoldsSomethingAndNeverTheRoot() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-cleanup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/kept/a/b", withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/kept/mine.txt"))
        Cleanup.removeEmptyFolders(above: root + "/kept/a/b/file.txt", below: root)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/kept") == ["mine.txt"])
        try FileManager.default.createDirectory(atPath: root + "/only", withIntermediateDirectories: true)
        Cleanup.removeEmptyFolders(above: root + "/only/x/", below: root)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).sorted() == ["kept"])
        Cleanup.removeEmptyFolders(above: root + "/kept/mine.txt", below: root + "/kept")
        #expect(FileManager.default.fileExists(atPath: root + "/kept"), "the root stays")
    }
}
