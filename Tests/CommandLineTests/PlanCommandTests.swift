import Foundation
import Testing
import XferBatch
import XferFixtures

@Suite("xferbatch plan")
struct PlanCommandTests {
    /// Plan output with the repository's absolute path replaced, so snapshots hold anywhere.
    func plan(_ args: [String], environment: [String: String] = [:]) async throws -> String {
        // A state folder that does not exist: the forecast never depends on earlier runs here.
        let noState = ["--state", "/nonexistent/xferbatch-state"]
        let result = try await CommandRunner.run(["plan"] + args + noState, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.replacingOccurrences(of: CommandRunner.repository.path, with: "<repo>")
    }

    @Test func textShowsWavesSettingsAndWarnings() async throws {
        try Snapshot.assert(try await plan(["examples/nightly-sync.json"]), named: "plan-nightly-sync.txt")
    }

    @Test func textOfTheQuickstart() async throws {
        // Outputs in a folder that does not exist, which any user may create (the plan says it
        // would): input sizes never come from an earlier demo run.
        try Snapshot.assert(try await plan(["examples/quickstart.json"], environment: ["XFERBATCH_OUT": "/tmp/xferbatch-never-created/quickstart"]),
                            named: "plan-quickstart.txt")
    }

    @Test func jsonOfTheMirrorExample() async throws {
        try Snapshot.assert(try await plan(["examples/mirror.json", "--format", "json", "--pretty"], environment: ["HOME": "/home/user"]),
                            named: "plan-mirror.json")
    }

    @Test func dotOfTheNightlySync() async throws {
        try Snapshot.assert(try await plan(["examples/nightly-sync.json", "--format", "dot"]), named: "plan-nightly-sync.dot")
    }

    @Test func mermaidOfTheNightlySync() async throws {
        try Snapshot.assert(try await plan(["examples/nightly-sync.json", "--format", "mermaid"]), named: "plan-nightly-sync.mmd")
    }

    @Test func theEnvironmentChangesTheEffectivePlan() async throws {
        let text = try await plan(["examples/ci-artifacts.json"], environment: ["CI_TOKEN": "t0ps3cret", "BUILD_ID": "777"])
        #expect(text.contains("/builds/777/artifacts/linux-x64.zip"))
        #expect(!text.contains("CI_TOKEN is not set"))
        #expect(!text.contains("t0ps3cret"), "a secret's value must never be printed")
    }

    @Test func anUnknownFormatIsAUsageError() async throws {
        let result = try await CommandRunner.run(["plan", "examples/mirror.json", "--format", "yaml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("yaml"))
    }

    @Test func aJobWhoseDestinationIsAFolderIsShownFailingInTextAndJSON() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("a.bin"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("m.json").path
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "https://x.org/a", "to": "a.bin"}}]}"#
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        let text = try await plan([manifest])
        #expect(text.contains("run: fails: a.bin is a folder; end \"to\" with / to download into it\n"))
        let json = try await plan([manifest, "--format", "json"])
        try json.write(toFile: folder.path + "/plan.json", atomically: true, encoding: .utf8)
        #expect(json.contains(#""action":"fails","reason":"\#(folder.path)/a.bin is a folder;"#))
        let schema = try await CommandRunner.runTool("python3", [SchemaTests.checker, "schemas/plan.schema.json", folder.path + "/plan.json"])
        #expect(schema.status == 0, "\(schema.stdout)\(schema.stderr)")
    }

    /// A folder a run could not write in (read-only here; permission denied for another
    /// user) shows as the failure it would be, and a state folder a run could not create as
    /// the stop it would be, while `plan` itself goes on: it writes nothing.
    @Test func foldersARunCouldNotWriteInAreShownBeforeTheRun() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 64 << 10) else { return }
        try FileManager.default.createDirectory(atPath: disk.path + "/there", withIntermediateDirectories: true)
        #expect(disk.makeReadOnly())
        let scratch = try RunCommandTests.Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "https://x.org/a", "to": "\#(disk.path)/there/a.bin"}, "allowOutsideOutputDir": true},"#
            .appending(#" {"id": "b", "download": {"url": "https://x.org/b", "to": "\#(disk.path)/new/b.bin"}, "allowOutsideOutputDir": true},"#)
            .appending(#" {"id": "c", "download": {"url": "https://x.org/c", "to": "c.bin"}}]}"#)
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["plan", scratch.path("m.json"), "--state", disk.path + "/state"])
        #expect(result.status == 0)
        let readOnly = String(cString: strerror(EROFS))
        #expect(result.stdout.contains("run: fails: cannot write in the folder \(disk.path)/there: \(readOnly)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("run: fails: cannot create the folder \(disk.path)/new: \(disk.path): \(readOnly)\n"))
        #expect(result.stdout.contains("run: download\n"), "c's folder is writable")
        #expect(result.stderr == "xferbatch: warning: a run would stop at once: cannot create the folder \(disk.path)/state: \(disk.path): \(readOnly) (--state DIR keeps the state elsewhere)\n")
    }

    /// A state folder on a full disk is the stop it would be for a run (exit 4), while
    /// `plan` reads it as usual.
    @Test func aStateFolderOnAFullDiskIsShownBeforeTheRun() async throws {
        guard let disk = RunCommandTests.fullDisk() else { return }
        let scratch = try RunCommandTests.Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "https://x.org/a", "to": "a.bin"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["plan", scratch.path("m.json"), "--state", disk.path + "/state"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("run: download\n"))
        #expect(result.stderr == "xferbatch: warning: a run would stop at once: the disk is full (0 B free on the file system holding \(disk.path)/state) (--state DIR keeps the state elsewhere)\n")
    }

    /// The sizes the manifest does not give, asked with HEAD requests, enter the disk check;
    /// the credentials are the run's, and nothing is downloaded or written.
    @Test func probeAsksTheServersForTheSizesTheManifestDoesNotGive() async throws {
        let server = try await FixtureServer.start()
        server.addFile("big.bin", [UInt8](repeating: 1, count: 3 << 20))
        server.requireAuth("/files/big.bin", .bearer(token: "s3cret"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("m.json").path
        try #"""
            {"version": 1, "outputDir": "out", "defaults": {"auth": {"bearer": {"tokenEnv": "TOKEN"}}}, "jobs": [
              {"id": "big", "download": {"url": "\#(server.baseURL)/files/big.bin", "to": "big.bin"}},
              {"id": "gone", "download": {"url": "\#(server.baseURL)/files/gone.bin", "to": "gone.bin"}},
              {"id": "sized", "download": {"url": "\#(server.baseURL)/files/big.bin", "to": "sized.bin", "size": "1MiB"}}]}
            """#.write(toFile: manifest, atomically: true, encoding: .utf8)
        let text = try await plan([manifest, "--probe"], environment: ["TOKEN": "s3cret"])
        await server.stop()
        #expect(text.contains("  disk: 4 MiB of known sizes to download; enough free space\n"), "3 MiB asked, 1 MiB given")
        #expect(text.contains("run: download; 3 MiB (the server's answer)\n"))
        #expect(text.components(separatedBy: "(the server's answer)").count == 2, "only big: gone is unknown, sized was given")
        #expect(server.requests(to: "/files/big.bin").map(\.method) == ["HEAD"])
        #expect(server.requests(to: "/files/gone.bin").map(\.method) == ["HEAD"])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
    }

    /// What a probe meets besides a size is said: a server that declines HEAD leaves the
    /// size unknown and says so; a 404 or a refused connection is a warning on the job,
    /// since the run's GET will most likely meet it too. Before, all three were silent.
    @Test func probeSaysWhyASizeIsUnknownAndWarnsOfWhatARunWouldMeet() async throws {
        let server = try await FixtureServer.start()
        server.addFile("nohead.bin", [UInt8](repeating: 1, count: 1000))
        server.script("/files/nohead.bin", [.status(405), .status(405)])  // one per plan
        let closed = try LoopbackPort.Refusing()
        defer { withExtendedLifetime(closed) {} }  // bound until the probes are made
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("m.json").path
        try #"""
            {"version": 1, "outputDir": "out", "jobs": [
              {"id": "nohead", "download": {"url": "\#(server.baseURL)/files/nohead.bin", "to": "a.bin"}},
              {"id": "gone", "download": {"url": "\#(server.baseURL)/files/gone.bin", "to": "b.bin"}},
              {"id": "down", "download": {"url": "http://127.0.0.1:\#(closed.port)/c.bin", "to": "c.bin"}}]}
            """#.write(toFile: manifest, atomically: true, encoding: .utf8)
        let text = try await plan([manifest, "--probe"])
        let json = try await plan([manifest, "--probe", "--format", "json"])
        await server.stop()
        #expect(text.contains("run: download; size unknown (the server does not allow HEAD: 405)\n"))
        #expect(text.contains("! probe: HTTP 404: the server answered 404; a run's GET may fail the same way\n"))
        #expect(text.contains("! probe: CURLE_COULDNT_CONNECT: "))
        #expect(text.contains("; a run would retry it\n"))
        #expect(text.hasSuffix("\n5 warnings. Nothing was transferred: this is a dry run.\n"), "3 without sha256, 2 probes")
        try json.write(toFile: folder.path + "/plan.json", atomically: true, encoding: .utf8)
        let schema = try await CommandRunner.runTool("python3", [SchemaTests.checker, "schemas/plan.schema.json", folder.path + "/plan.json"])
        #expect(schema.status == 0, "\(schema.stdout)\(schema.stderr)")
        let runs = ((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["jobs"] as? [[String: Any]])?
            .map { $0["run"] as? [String: Any] ?? [:] } ?? []
        #expect(runs.map { $0["probeSizeUnknown"] as? String } == ["the server does not allow HEAD: 405", nil, nil])
        #expect(runs.map { $0["probeFailureRetried"] as? Bool } == [nil, false, true])
    }

    /// Every run action this session added, in one JSON plan the schema must accept:
    /// `fails` (with a reason), `adopt` (with a path) and a probed size.
    @Test func theJSONPlanWithFailsAdoptAndProbedSizesMatchesTheSchema() async throws {
        let server = try await FixtureServer.start()
        server.addFile("c.bin", [UInt8](repeating: 2, count: 1000))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("a.bin"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("there".utf8).write(to: folder.appendingPathComponent("b.bin"))
        let manifest = folder.appendingPathComponent("m.json").path
        try #"""
            {"version": 1, "jobs": [
              {"id": "a", "download": {"url": "\#(server.baseURL)/files/c.bin", "to": "a.bin"}},
              {"id": "b", "download": {"url": "\#(server.baseURL)/files/c.bin", "to": "b.bin", "sha256": "\#(FileDigest.sha256(ofText: "there"))"}},
              {"id": "c", "download": {"url": "\#(server.baseURL)/files/c.bin", "to": "c.bin"}}]}
            """#.write(toFile: manifest, atomically: true, encoding: .utf8)
        let json = try await plan([manifest, "--probe", "--format", "json"])
        await server.stop()
        try json.write(toFile: folder.path + "/plan.json", atomically: true, encoding: .utf8)
        let plan = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let runs = (plan?["jobs"] as? [[String: Any]])?.map { $0["run"] as? [String: Any] ?? [:] } ?? []
        #expect(runs.map { $0["action"] as? String } == ["fails", "adopt", "transfer"])
        #expect(runs.last?["probedSize"] as? Int == 1000)
        let schema = try await CommandRunner.runTool("python3", [SchemaTests.checker, "schemas/plan.schema.json", folder.path + "/plan.json"])
        #expect(schema.status == 0, "\(schema.stdout)\(schema.stderr)")
    }

    @Test func planTouchesNothing() async throws {
        let out = CommandRunner.repository.appendingPathComponent("examples/out")
        let existed = FileManager.default.fileExists(atPath: out.path)
        _ = try await plan(["examples/nightly-sync.json", "--format", "json"])
        #expect(FileManager.default.fileExists(atPath: out.path) == existed)
    }
}

@Suite("xferbatch --help")
struct HelpTests {
    @Test(arguments: [["--help"], ["plan", "--help"], ["validate", "--help"], ["run", "--help"]])
    func helpMatchesItsSnapshot(args: [String]) async throws {
        let result = try await CommandRunner.run(args, environment: ["COLUMNS": "100"])
        #expect(result.status == 0)
        try Snapshot.assert(result.stdout, named: "help-\(args.dropLast().joined(separator: "-").isEmpty ? "root" : args[0]).txt")
    }

    @Test func versionNamesTheCLibraries() async throws {
        let result = try await CommandRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: #"^xferbatch \d+\.\d+\.\d+ \(libcurl \d+\.\d+\.\d+, libarchive \d+\.\d+\.\d+\)\n$"#, options: .regularExpression) != nil)
    }
}
