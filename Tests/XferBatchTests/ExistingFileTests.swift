import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

/// Files already at their destination that no run of this manifest recorded: a lost or
/// deleted state folder, outputs a CI cache restored, files another tool fetched.
@Suite("Checkpoints: files already there")
struct ExistingFileTests {
    typealias E = ExecutorTesting

    static let content = Array("0123456789".utf8)
    static let sha = FileDigest.sha256(ofText: "0123456789")

    static func plan(_ t: E, inner: String = #", "sha256": "\#(sha)""#) throws -> Plan {
        t.transport.script("https://x.org/a", [.body(content)])
        return try t.plan(jobs: E.download("a", "https://x.org/a", inner: inner))
    }

    @Test func aFileWithTheManifestsSHA256IsAdoptedWithoutARequest() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        try Data(Self.content).write(to: t.folder.appendingPathComponent("a.bin"))
        let plan = try Self.plan(t)
        #expect(RunForecast(plan: plan, store: store).actions == [.adopt(path: t.folder.path + "/a.bin")])
        let first = await t.run(plan, store: store)
        #expect(first.summary.upToDate == 1)
        #expect(t.transport.requests.isEmpty)
        let record = try #require(try store.load("a"))
        #expect(record.phase == .done && record.sha256 == Self.sha && record.bytes == 10)
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: t.folder.path + "/a.bin")], "recorded: not hashed again")
    }

    @Test func aFileWithAnotherSHA256IsReplacedByTheDownload() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try Data("9876543210".utf8).write(to: t.folder.appendingPathComponent("a.bin"))
        let result = await t.run(try Self.plan(t), store: InMemoryCheckpointStore())
        #expect(result.summary.succeeded == 1)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data(Self.content))
    }

    @Test(arguments: ["", #", "sha256": "\#(sha)", "refresh": "always""#, #", "sha256": "\#(sha)", "size": 11"#])
    func withoutAChecksumOrWhenAlwaysFetchedOrOfAnotherSizeTheFileIsDownloaded(inner: String) async throws {
        let t = try E()
        defer { t.cleanUp() }
        try Data(Self.content).write(to: t.folder.appendingPathComponent("a.bin"))
        let plan = try Self.plan(t, inner: inner)
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == [.transfer])
        let result = await t.run(plan, store: InMemoryCheckpointStore())
        #expect(result.summary.upToDate == 0)
        #expect(!t.transport.requests.isEmpty, "not adopted: the server was asked")
    }
}
