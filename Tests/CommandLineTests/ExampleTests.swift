import Foundation
import Testing
import XferFixtures

/// The bundled examples that can run offline are run here, as the README's demo runs them.
@Suite("Examples")
struct ExampleTests {
    @Test func theQuickstartRunsAgainstTheFixtureServerAndThenIsUpToDate() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-example-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let served = scratch + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let readme = CommandRunner.repository.appendingPathComponent("examples/fixtures/readme.txt").path
        try FileManager.default.copyItem(atPath: readme, toPath: served + "/readme.txt")
        try Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131) }).write(to: URL(fileURLWithPath: served + "/dataset.bin"))
        let server = try await FixtureServer.start(root: served)
        let environment = ["FIXTURE_PORT": "\(server.port)", "XFERBATCH_OUT": scratch + "/out"]
        let arguments = ["run", "examples/quickstart.json", "--state", scratch + "/state", "--report", scratch + "/report.json"]

        let first = try await CommandRunner.run(arguments, environment: environment)
        #expect(first.status == 0, "\(first.stderr.suffix(3000))")
        #expect(first.stdout.hasPrefix("Done: 7 succeeded of 7 jobs"))
        #expect(FileManager.default.contents(atPath: scratch + "/out/unpacked/readme.txt") == FileManager.default.contents(atPath: readme))
        #expect(FileManager.default.contents(atPath: scratch + "/out/unpacked/inline.txt") == Data("hello, xferbatch\n".utf8))
        #expect(first.stderr.contains("done     unbundle"))
        #expect(server.uploads.count == 2)
        let schema = try await CommandRunner.runTool("python3", ["Tests/Manifests/check_schema.py", "schemas/report.schema.json", scratch + "/report.json"])
        #expect(schema.status == 0, "\(schema.stdout)")

        let second = try await CommandRunner.run(arguments, environment: environment)
        await server.stop()
        #expect(second.status == 0)
        #expect(second.stdout.contains("7 up-to-date"), "\(second.stdout)")
        #expect(server.uploads.count == 2, "unchanged sources are not sent again")
    }

    /// The demo's server, started by a user without root (as `nobody` when the tests run as
    /// root), serves a run. It reset every connection: it asked for TCP_NODELAY at the
    /// socket level, where that number is SO_DEBUG, which only root may set.
    @Test func theDemosServerServesWhenStartedWithoutRoot() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-unprivileged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let readme = CommandRunner.repository.appendingPathComponent("examples/fixtures/readme.txt").path
        chmod(scratch.path, 0o755)
        let server = try FixtureProgram(serving: CommandRunner.repository.appendingPathComponent("examples/fixtures").path, scratch: scratch)
        defer { server.stop() }
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "r", "download": {"url": "\#(server.baseURL)/files/readme.txt", "to": "r.txt", "retry": {"attempts": 1}}}]}"#
            .write(to: scratch.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        let run = try await CommandRunner.run(["run", "m.json"], in: scratch)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.contents(atPath: scratch.path + "/out/r.txt") == FileManager.default.contents(atPath: readme))
    }
}
