import Foundation
import Testing
import XferBatch
import XferFixtures

/// The JSON Schemas checked by a validator we did not write (Python's jsonschema),
/// against the same files `xferbatch validate` sees.
@Suite("JSON Schemas")
struct SchemaTests {
    static let checker = "Tests/Manifests/check_schema.py"

    func check(_ schema: String, _ files: [String]) async throws -> CommandRunner.Result {
        try await CommandRunner.runTool("python3", [Self.checker, schema] + files)
    }

    static func files(in folder: String) -> [String] {
        let url = CommandRunner.repository.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { "\(folder)/\($0)" }
    }

    @Test func theSchemasAreValidDraft2020_12() async throws {
        let result = try await CommandRunner.runTool("python3", [Self.checker, "--meta"] + Self.files(in: "schemas"))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test func everyOutputFormatHasASchema() {
        #expect(Self.files(in: "schemas") == ["events", "manifest", "plan", "report", "status"].map { "schemas/\($0).schema.json" })
    }

    @Test func everyExampleMatchesTheManifestSchema() async throws {
        let examples = Self.files(in: "examples")
        #expect(examples.count >= 5)
        let result = try await check("schemas/manifest.schema.json", examples)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test(arguments: SchemaTests.files(in: "Tests/Manifests/invalid"))
    func everyInvalidManifestIsRejectedByBoth(file: String) async throws {
        let schema = try await check("schemas/manifest.schema.json", ["--expect-invalid", file])
        #expect(schema.status == 0, "the schema accepted \(file): \(schema.stdout)\(schema.stderr)")
        let ours = try await CommandRunner.run(["validate", file])
        #expect(ours.status == 2, "xferbatch accepted \(file)")
        #expect(!ours.stderr.isEmpty)
    }

    @Test func thereAreInvalidManifestsToCheck() {
        #expect(Self.files(in: "Tests/Manifests/invalid").count >= 10)
    }

    @Test func everyPlanMatchesThePlanSchema() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-plans-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var plans: [String] = []
        for example in Self.files(in: "examples") {
            // The whole manifest, and its last job with what it needs (a "selection").
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: CommandRunner.repository.appendingPathComponent(example)))
            let last = try #require(((manifest as? [String: Any])?["jobs"] as? [[String: Any]])?.last?["id"] as? String)
            for (suffix, selected) in [("", [String]()), ("-selected", [last])] {
                let result = try await CommandRunner.run(["plan", "--format", "json", example] + selected)
                #expect(result.status == 0)
                let file = folder.appendingPathComponent(URL(fileURLWithPath: example).deletingPathExtension().lastPathComponent + suffix + ".json")
                try result.stdout.write(to: file, atomically: true, encoding: .utf8)
                plans.append(file.path)
            }
        }
        let result = try await check("schemas/plan.schema.json", plans)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// The answers `plan` gives only after a run: up to date, inputs changed, output changed.
    @Test func aPlanAfterARunMatchesThePlanSchema() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-plan-after-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        let inputs = [folder.appendingPathComponent("in.txt"), folder.appendingPathComponent("out/packed.txt")]
        for input in inputs { try Data("one".utf8).write(to: input) }
        let manifest = folder.appendingPathComponent("m.json")
        try Data(#"""
            {"version": 1, "outputDir": "out", "jobs": [
              {"id": "d", "download": {"url": "data:,hello", "to": "d.txt"}},
              {"id": "z", "archive": {"from": ["d", "packed.txt"], "to": "z.tar"}},
              {"id": "x", "extract": {"from": "z", "to": "x/"}},
              {"id": "u", "upload": {"from": "in.txt", "url": "file://\#(folder.path)/sent.txt"}}
            ]}
            """#.utf8).write(to: manifest)
        #expect(try await CommandRunner.run(["run", "-q", manifest.path]).status == 0)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("out/x"))
        var plans: [String] = []
        for (name, edit) in [("unchanged", false), ("changed", true)] {
            if edit { for input in inputs { try Data("two".utf8).write(to: input) } }
            let result = try await CommandRunner.run(["plan", "--format", "json", manifest.path])
            #expect(result.status == 0)
            let file = folder.appendingPathComponent("\(name).json")
            try result.stdout.write(to: file, atomically: true, encoding: .utf8)
            plans.append(file.path)
            let actions = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["jobs"]
                .flatMap { $0 as? [[String: Any]] }?.compactMap { ($0["run"] as? [String: Any])?["action"] as? String }
            #expect(actions == (edit ? ["up-to-date", "inputs-changed", "skip-if-unchanged", "inputs-changed"]
                                     : ["up-to-date", "up-to-date", "output-changed", "up-to-date"]))
        }
        let result = try await check("schemas/plan.schema.json", plans)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// `status --json` with a job in each state (done, packed, partial, failed, pending
    /// for a reason), a stale record, and again while a run holds the state folder.
    @Test func statusInEveryStateMatchesTheStatusSchema() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        _ = try await StateCommandTests.leaveAPartial(scratch, server)
        await server.stop()
        try Data("one".utf8).write(to: URL(fileURLWithPath: scratch.path("in.txt")))
        let jobs = [
            StateCommandTests.bigJob(server, to: "big.bin"), StateCommandTests.smallJob,
            #"{"id": "p", "download": {"url": "data:,packed", "to": "p.txt"}}"#,
            #"{"id": "z", "archive": {"from": ["p"], "to": "z.tar", "removeSources": true}}"#,
            #"{"id": "x", "extract": {"from": "z", "to": "x/"}}"#,
            #"{"id": "up", "upload": {"from": "in.txt", "url": "file://\#(scratch.path("sent.txt"))"}}"#,
            #"{"id": "bad", "download": {"url": "file://\#(scratch.path("missing.txt"))", "to": "bad.txt", "retry": {"attempts": 1}}}"#,
        ]
        let gone = #"{"id": "gone", "download": {"url": "data:,gone", "to": "gone.txt"}}"#
        try StateCommandTests.manifest(scratch, jobs: jobs + [gone])
        let run = try await CommandRunner.run(["run", "-q", scratch.path("m.json"), "small", "z", "x", "up", "bad", "gone"])
        #expect(run.status == 1, "bad fails: \(run.stdout)")
        try Data("two".utf8).write(to: URL(fileURLWithPath: scratch.path("in.txt")))
        try FileManager.default.removeItem(atPath: scratch.path("out/small.txt"))
        try StateCommandTests.manifest(scratch, jobs: jobs)

        let idle = try await CommandRunner.run(["status", "--json", scratch.path("m.json")])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(idle.stdout.utf8)) as? [String: Any])
        let rows = try #require(document["jobs"] as? [[String: Any]])
        #expect(rows.map { "\($0["id"] ?? "") \($0["state"] ?? "")" }
                == ["big partial", "small pending", "p done", "z done", "x done", "up pending", "bad failed"])
        #expect(rows.map { $0["reason"] as? String } == [nil, "the output was removed", nil, nil, nil, "the source changed since it was sent", nil])
        #expect(rows[2]["packedInto"] as? String == scratch.path("out/z.tar"))
        #expect((document["stale"] as? [[String: Any]])?.map { $0["id"] as? String } == ["gone"])
        try idle.stdout.write(toFile: scratch.path("idle.json"), atomically: true, encoding: .utf8)

        let lock = try await RunLock.acquire(stateFolder: scratch.path(".xferbatch/m.json"))
        let busy = try await CommandRunner.run(["status", "--json", scratch.path("m.json")])
        withExtendedLifetime(lock) {}
        #expect(busy.stdout.contains(#""runUnderWay": "pid \#(getpid()) since "#), "\(busy.stdout)")
        try busy.stdout.write(toFile: scratch.path("busy.json"), atomically: true, encoding: .utf8)

        let result = try await check("schemas/status.schema.json", [scratch.path("idle.json"), scratch.path("busy.json")])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
