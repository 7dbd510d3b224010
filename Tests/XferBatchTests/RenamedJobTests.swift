import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

@Suite("Checkpoints: renamed jobs")
struct RenamedJobTests {
    typealias E = ExecutorTesting

    /// Only the id changed: the finished file stays, nothing is fetched or read, and the
    /// record is the new id's from then on.
    @Test func aRenamedDownloadKeepsItsFinishedFile() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("alpha".utf8))])
        #expect(await t.run(try t.plan(jobs: E.download("linux", "https://x.org/a", to: "linux.tar")), store: store).summary.succeeded == 1)
        let renamed = try t.plan(jobs: E.download("kernel", "https://x.org/a", to: "linux.tar"))
        #expect(RunForecast(plan: renamed, store: store).actions == [.upToDate(path: t.folder.path + "/linux.tar")])
        #expect(try JobStatus.all(plan: renamed, store: store).map(\.state) == [.done], "status says what plan says")
        #expect(try StaleRecord.all(plan: renamed, store: store).isEmpty, "not stale while it is taken over")
        let requests = t.transport.requests.count
        let again = await t.run(renamed, store: store)
        #expect(again.summary.upToDate == 1)
        #expect(t.transport.requests.count == requests, "nothing fetched")
        #expect(try store.load("kernel")?.phase == .done)
        #expect(try store.load("kernel")?.sha256 == FileDigest.sha256(ofText: "alpha"))
        #expect(try StaleRecord.all(plan: renamed, store: store).map(\.id) == ["linux"], "stale once the new id has its record")
    }

    /// A 10 GiB backup's upload renamed is not sent again while its source is as it was.
    @Test func aRenamedUploadIsNotSentAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let source = t.folder.path + "/backup.tar"
        try #require(FileManager.default.createFile(atPath: source, contents: Data("backup".utf8)))
        t.transport.script("https://x.org/backup.tar", [.body([])])
        let upload = { (id: String) in #"{"id": "\#(id)", "upload": {"from": "\#(source)", "url": "https://x.org/backup.tar"}}"# }
        #expect(await t.run(try t.plan(jobs: upload("nightly")), store: store).summary.succeeded == 1)
        let renamed = try t.plan(jobs: upload("backup"))
        #expect(RunForecast(plan: renamed, store: store).actions == [.upToDate(path: "https://x.org/backup.tar")])
        let requests = t.transport.requests.count
        #expect(await t.run(renamed, store: store).summary.upToDate == 1)
        #expect(t.transport.requests.count == requests, "nothing sent")
        #expect(try store.load("backup")?.phase == .done)
    }
}
