import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

@Suite("Disk space")
struct DiskSpaceTests {
    @Test func aDownloadTooLargeForTheDiskFailsAtOnceAndOthersGoOn() async throws {
        let t = try ExecutorTesting()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/small", [.body([1])])
        let plan = try t.plan(jobs: ExecutorTesting.download("huge", "https://x.org/huge", inner: #", "size": "900TB""#) + ","
                              + ExecutorTesting.download("small", "https://x.org/small"))
        let result = await t.run(plan)
        #expect(result.state("huge") == .failed)
        #expect(result.job("huge")?.lifecycle.reason?.hasPrefix("no-space: ") == true)
        #expect(result.job("huge")?.lifecycle.reason?.contains("is free there") == true)
        #expect(t.transport.requests.allSatisfy { $0.url.hasSuffix("/small") }, "the big one was never requested")
        #expect(result.state("small") == .succeeded)
    }

    /// Each `size` may be up to 4 EiB; `plan` trapped adding four of them up.
    @Test func declaredSizesTooLargeToAddUpAreStillNotEnoughSpace() throws {
        let t = try ExecutorTesting()
        defer { t.cleanUp() }
        let ids = ["a", "b", "c", "d"]
        let downloads = ids.map { ExecutorTesting.download($0, "https://x.org/\($0)", inner: #", "size": \#(Int64.max / 2)"#) }
        let archive = #"{"id": "z", "archive": {"from": ["a", "b", "c", "d"], "to": "z.tar"}}"#
        let plan = try t.plan(jobs: (downloads + [archive]).joined(separator: ","))
        let forecast = RunForecast(plan: plan, store: InMemoryCheckpointStore())
        #expect(forecast.bytesNeeded == Int64.max)
        #expect(!forecast.enoughSpace)
        #expect(forecast.inputs[4]?.bytes == Int64.max)
    }
}
