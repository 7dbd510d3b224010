import Foundation
import Testing
@testable import XferBatch

@Suite("xferbatch status output")
struct StatusRenderingTests {
    let rows = [
        JobStatus(id: "a", state: .done, path: "out/a.bin", sha256: String(repeating: "ab", count: 32), bytes: 10),
        JobStatus(id: "b", state: .partial, path: "out/b.bin.xferpart", bytes: 250, expected: 1000),
        JobStatus(id: "c", state: .failed, bytes: 0, lastError: "HTTP 404: not found"),
        JobStatus(id: "d", state: .pending, bytes: 0, reason: "the output was removed"),
        JobStatus(id: "e", state: .pending, bytes: 0),
        JobStatus(id: "up", state: .done, sha256: String(repeating: "cd", count: 32), bytes: 10),
        JobStatus(id: "unpack", state: .done, path: "out/x/", bytes: 10),
    ]

    @Test func textHasALinePerJobAndTheTotals() {
        #expect(JobStatus.text(rows) == """
            done     a  out/a.bin  sha256 abababababab…
            partial  b  25%  out/b.bin.xferpart
            failed   c  HTTP 404: not found
            pending  d  (the output was removed)
            pending  e
            done     up  sha256 cdcdcdcdcdcd…
            done     unpack  out/x/
            3 done, 1 partial, 1 failed, 2 pending of 7 jobs

            """)
    }

    @Test func jsonCountsTheSameTotalsAsTheText() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(JobStatus.json(rows))) as? [String: Any])
        let totals = try #require(document["totals"] as? [String: Int])
        #expect(totals == ["done": 3, "partial": 1, "failed": 1, "pending": 2])
        let jobs = try #require(document["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["id"] as? String } == ["a", "b", "c", "d", "e", "up", "unpack"])
        #expect(jobs[1]["expectedBytes"] as? Int == 1000)
    }
}
