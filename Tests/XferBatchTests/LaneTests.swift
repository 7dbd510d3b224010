import Foundation
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

/// Lanes: how many transfer engines a run uses, and a run spread over several.
@Suite("Lanes")
struct LaneTests {
    typealias E = ExecutorTesting

    /// One lane of a run: counts its transfers, and performs them on a transport that all
    /// lanes share, so that limits are checked across lanes.
    final class Lane: Transport {
        let shared: InMemoryTransport
        private let count = Mutex(0)
        var transfers: Int { count.withLock { $0 } }

        init(_ shared: InMemoryTransport) { self.shared = shared }

        func perform(_ request: TransferRequest, progress: TransferProgress) async throws(TransferError) -> TransferOutcome {
            count.withLock { $0 += 1 }
            return try await shared.perform(request, progress: progress)
        }
    }

    func plan(_ t: E, jobs: [String], limits: String = #"{"concurrency": 8, "perHost": 8}"#) throws -> Plan {
        try t.plan(jobs: jobs.joined(separator: ","), limits: limits)
    }

    func downloads(_ n: Int, scheme: String = "https") -> [String] {
        (0..<n).map { E.download("j\($0)", "\(scheme)://x.org/\($0)") }
    }

    @Test func aRunUsesALanePerProcessorUpToItsSlotsAndTheCap() throws {
        let t = try E()
        defer { t.cleanUp() }
        let plan = try plan(t, jobs: downloads(3))
        #expect(Executor.laneCount(for: plan, processors: 1) == 1)
        #expect(Executor.laneCount(for: plan, processors: 2) == 2)
        #expect(Executor.laneCount(for: plan, processors: 64) == Executor.maxLanes)
        let oneSlot = try self.plan(t, jobs: downloads(3), limits: #"{"concurrency": 1}"#)
        #expect(Executor.laneCount(for: oneSlot, processors: 8) == 1)
    }

    @Test func aBandwidthCapKeepsOneLane() throws {
        let t = try E()
        defer { t.cleanUp() }
        let plan = try plan(t, jobs: downloads(3), limits: #"{"concurrency": 8, "bandwidth": "1MiB/s"}"#)
        #expect(Executor.laneCount(for: plan, processors: 8) == 1)
    }

    @Test(arguments: ["ftp", "ftps", "sftp"])
    func aServerThatCountsConnectionsKeepsTheRunOnOneLane(scheme: String) throws {
        let t = try E()
        defer { t.cleanUp() }
        let plan = try plan(t, jobs: downloads(2) + [E.download("remote", "\(scheme)://files.example/a.bin")])
        #expect(Executor.laneCount(for: plan, processors: 8) == 1)
    }

    @Test func attemptsSpreadOverTheLanesAndTheLimitsHoldAcrossThem() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let shared = InMemoryTransport(holdFor: .milliseconds(5))
        for i in 0..<24 { shared.script("https://x.org/\(i)", [.body(Array("file \(i)".utf8))]) }
        let lanes = [Lane(shared), Lane(shared)]
        let plan = try plan(t, jobs: downloads(24), limits: #"{"concurrency": 4, "perHost": 3}"#)
        let result = await Executor(plan: plan, lanes: lanes, clock: t.clock, events: t.events, environment: [:]).run()
        #expect(result.summary.succeeded == 24)
        #expect(shared.maxInFlight <= 3, "perHost holds over both lanes")
        #expect(shared.maxInFlight >= 2, "transfers on the two lanes ran together")
        #expect(lanes.map(\.transfers).reduce(0, +) == 24)
        #expect(lanes.allSatisfy { $0.transfers >= 6 }, "each lane carries its share: \(lanes.map(\.transfers))")
        for i in 0..<24 {
            #expect(try String(contentsOfFile: t.folder.appendingPathComponent("j\(i).bin").path, encoding: .utf8) == "file \(i)")
        }
    }
}
