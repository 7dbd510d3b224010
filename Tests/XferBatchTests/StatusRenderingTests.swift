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
            done     a       out/a.bin  sha256 abababababab…
            partial  b       25%  out/b.bin.xferpart
            failed   c       HTTP 404: not found
            pending  d       (the output was removed)
            pending  e
            done     up      sha256 cdcdcdcdcdcd…
            done     unpack  out/x/
            3 done, 1 partial, 1 failed, 2 pending of 7 jobs

            """)
    }

    /// What follows the ids lines up, unless an id is too long to pad the others to.
    @Test func whatFollowsTheIdsLinesUpUnlessAnIdIsVeryLong() {
        let long = String(repeating: "x", count: JobStatus.alignedIdColumns + 1)
        let text = JobStatus.text([
            JobStatus(id: "d9", state: .failed, bytes: 0, lastError: "CURLE_COULDNT_CONNECT"),
            JobStatus(id: "d10", state: .failed, bytes: 0, lastError: "CURLE_COULDNT_CONNECT"),
            JobStatus(id: "データ", state: .pending, bytes: 0, reason: "started, but no data was kept"),
            JobStatus(id: long, state: .failed, bytes: 0, lastError: "HTTP 404"),
        ])
        #expect(text == """
            failed   d9      CURLE_COULDNT_CONNECT
            failed   d10     CURLE_COULDNT_CONNECT
            pending  データ  (started, but no data was kept)
            failed   \(long)  HTTP 404
            0 done, 0 partial, 3 failed, 1 pending of 4 jobs

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
