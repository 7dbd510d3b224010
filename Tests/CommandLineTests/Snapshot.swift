import Foundation
import Testing

/// Compares text with a file under Tests/CommandLineTests/Snapshots.
///
/// Set `XFERBATCH_UPDATE_SNAPSHOTS=1` to (re)write the files; review the diff before committing.
enum Snapshot {
    static let folder = CommandRunner.repository.appendingPathComponent("Tests/CommandLineTests/Snapshots")

    static func assert(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["XFERBATCH_UPDATE_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("no snapshot \(name); run with XFERBATCH_UPDATE_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
            return
        }
        #expect(actual == expected, "output differs from Snapshots/\(name)", sourceLocation: sourceLocation)
    }
}
