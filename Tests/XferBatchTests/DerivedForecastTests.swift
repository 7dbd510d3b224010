import Foundation
import Testing
@testable import XferBatch
import XferFixtures

/// What `plan` says a run would do with uploads, archives and extractions done before:
/// decided as the run decides it, from the inputs' stamps and the output on disk.
@Suite("Plan: uploads, archives and extractions done before")
struct DerivedForecastTests {
    typealias E = ExecutorTesting

    @Test func aFinishedUploadIsUpToDateUntilItsSourceChanges() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let (plan, source) = try CheckpointRunTests.oneUpload(t, answers: [.body([]), .body([])])
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: "https://x.org/u")])
        try #require(FileManager.default.createFile(atPath: source, contents: Data("two".utf8)))
        #expect(RunForecast(plan: plan, store: store).actions == [.inputsChanged])
        #expect(RunForecast.describe(.inputsChanged, kind: .upload)
                == "send again: the source changed since it was sent (not sent if its content is the same)")
        let rerun = await t.run(plan, store: store)
        #expect(rerun.job("u")?.result?.upToDate == false, "sent again, as plan said")
    }

    @Test func anArchiveIsUpToDateUntilAnInputOrTheArchiveItselfChanges() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let input = t.folder.path + "/in.txt"
        try #require(FileManager.default.createFile(atPath: input, contents: Data("one".utf8)))
        let archive = t.folder.path + "/z.tar.gz"
        let plan = try t.plan(jobs: #"{"id": "z", "archive": {"from": ["\#(input)"], "to": "z.tar.gz"}}"#)
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: archive)])
        #expect(RunForecast.describe(.upToDate(path: archive), kind: .archive) == "up to date (\(archive)): nothing to build")
        var shown = plan
        shown.forecast = RunForecast(plan: plan, store: store)
        #expect(shown.text().contains("      run: up to date (z.tar.gz): nothing to build\n"), "no input sizes for a build that will not happen")

        try FileManager.default.removeItem(atPath: archive)
        #expect(RunForecast(plan: plan, store: store).actions == [.outputChanged(path: archive)])
        #expect(await t.run(plan, store: store).job("z")?.result?.upToDate == false, "built again, as plan said")

        try #require(FileManager.default.createFile(atPath: input, contents: Data("two".utf8)))
        #expect(RunForecast(plan: plan, store: store).actions == [.inputsChanged])
        #expect(await t.run(plan, store: store).job("z")?.result?.upToDate == false, "built again, as plan said")
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: archive)])
    }

    @Test func anExtractionIsUpToDateUntilItsFolderGoes() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a.tgz", [.body(try ArchiveJobTests.fixture("good.tar.gz"))])
        let plan = try t.plan(jobs: E.download("zip", "https://x.org/a.tgz", to: "a.tgz")
                                  + #", {"id": "unpack", "extract": {"from": "zip", "to": "unpacked"}}"#)
        #expect(await t.run(plan, store: store).summary.succeeded == 2)
        let folder = t.folder.path + "/unpacked/"  // as the job names it
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: t.folder.path + "/a.tgz"), .upToDate(path: folder)])
        try FileManager.default.removeItem(atPath: folder)
        #expect(RunForecast(plan: plan, store: store).actions[1] == .outputChanged(path: folder))
        #expect(RunForecast.describe(.outputChanged(path: folder), kind: .extract) == "extract again: \(folder) is no longer there")
        #expect(await t.run(plan, store: store).job("unpack")?.result?.upToDate == false, "extracted again, as plan said")
    }

    /// A job whose input a job before it fetches again: what it finds is known only then.
    @Test func aJobWhoseInputAnEarlierJobMayChangeIsLeftToTheRun() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("one".utf8)), .body(Array("one".utf8))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", to: "a.txt", inner: #", "refresh": "always""#)
                                  + #", {"id": "z", "archive": {"from": ["a"], "to": "z.tar.gz"}}"#)
        #expect(await t.run(plan, store: store).summary.succeeded == 2)
        #expect(RunForecast(plan: plan, store: store).actions == [.transfer, .skipIfUnchanged])
    }

    /// The plan shows paths in the manifest's folder relative to it, but an upload's URL whole.
    @Test func anUpToDateUploadToAFileURLInTheManifestsFolderIsShownWhole() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let source = t.folder.path + "/up.txt"
        try #require(FileManager.default.createFile(atPath: source, contents: Data("one".utf8)))
        let url = "file://\(t.folder.path)/sent/up.txt"
        t.transport.script(url, [.body([])])
        var plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source)", "url": "\#(url)"}}"#)
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        plan.forecast = RunForecast(plan: plan, store: store)
        #expect(plan.text().contains("      run: up to date (\(url)): nothing to transfer\n"))
    }
}
