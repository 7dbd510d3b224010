import Testing
@testable import XferBatch

/// Which ready job starts next, under the per-host limit (`ReadyQueue`).
@Suite("Ready queue")
struct ReadyQueueTests {
    typealias M = ManifestTesting

    /// Jobs 0-3 on host a, 4 on host b, 5 an archive (no host); per host 2.
    static func queue() throws -> ReadyQueue {
        let jobs = (0..<4).map { M.download("a\($0)", "https://a.org/\($0)", to: "a\($0)") }
            + [M.download("b", "https://b.org/x", to: "b"), #"{"id": "z", "archive": {"from": ["a0"], "to": "z.tar"}}"#]
        let plan = try M.plan(M.manifest(jobs: jobs.joined(separator: ","), extra: #""limits": {"concurrency": 8, "perHost": 2},"#))
        return ReadyQueue(plan: plan)
    }

    @Test func aFullHostLetsTheBestJobOfAnotherHostGoFirst() throws {
        var q = try Self.queue()
        for j in [3, 2, 1, 0, 4] { q.add(j) }  // added in any order, taken in start order
        var taken: [Int] = []
        while let j = q.next() {
            q.started(j)
            taken.append(j)
        }
        #expect(taken == [0, 1, 4], "a0, a1, then host a is full: b")
        #expect(q.count == 2)
        q.ended(0)
        #expect(q.next() == 2, "a2 once a0's slot is free")
        q.started(2)
        #expect(q.next() == nil, "host a is full again (a1 and a2)")
    }

    @Test func jobsWithoutAHostAreNeverHeldBackByOne() throws {
        var q = try Self.queue()
        for j in [0, 1, 2, 5] { q.add(j) }
        for _ in 0..<2 { if let j = q.next() { q.started(j) } }
        #expect(q.next() == 5, "the archive goes while host a is full")
        #expect(q.next() == nil)
    }

    @Test func aHostIsANameWithItsPortAndDataURLsShareOneNamedLocal() throws {
        let jobs = [M.download("p", "https://a.org/x", to: "p"), M.download("q", "https://a.org:8443/x", to: "q"),
                    M.download("d1", "data:,1", to: "d1"), M.download("d2", "data:,2", to: "d2")]
        let plan = try M.plan(M.manifest(jobs: jobs.joined(separator: ","), extra: #""limits": {"concurrency": 8, "perHost": 1},"#))
        var q = ReadyQueue(plan: plan)
        for j in 0..<4 { q.add(j) }
        var taken: [Int] = []
        while let j = q.next() {
            q.started(j)
            taken.append(j)
        }
        #expect(taken == [0, 1, 2], "one job each for a.org, a.org:8443 and the data: URLs (perHost 1)")
    }

    @Test func aJobAddedAgainForARetryKeepsItsPlace() throws {
        var q = try Self.queue()
        for j in [1, 2] { q.add(j) }
        let first = q.next()
        #expect(first == 1)
        q.started(1)
        q.ended(1)
        q.add(1)  // its retry is due
        #expect(q.next() == 1, "a1 precedes a2 in the start order")
        q.removeAll()
        #expect(q.count == 0 && q.next() == nil)
    }
}
