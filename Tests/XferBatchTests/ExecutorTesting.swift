import Foundation
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

/// A clock whose sleeps return at once and move virtual time forward: retry delays are
/// recorded exactly and cost no real time.
final class VirtualClock: ExecutionClock {
    private let time = Mutex(Duration.zero)

    func now() -> Duration { time.withLock { $0 } }

    /// Moves time on, as if `duration` had passed.
    func advance(by duration: Duration) { time.withLock { $0 += duration } }

    func sleep(for duration: Duration) async throws {
        let deadline = now() + duration
        await Task.yield()
        try Task.checkCancellation()
        time.withLock { $0 = max($0, deadline) }
    }
}

/// A clock whose time stands still and whose sleeps end only when cancelled: a run under
/// it ends only if every delay it began was cut short (a test's time limit catches the
/// rest). Unlike a real clock, it does not depend on how busy the machine is.
final class StoppedClock: ExecutionClock {
    func now() -> Duration { .zero }

    func sleep(for duration: Duration) async throws {
        let cancelled = Alarm()
        await withTaskCancellationHandler { await cancelled.wait() } onCancel: { cancelled.ring() }
        throw CancellationError()
    }
}

/// Plans a manifest whose outputDir is a fresh temporary folder, and runs it.
struct ExecutorTesting {
    let folder: URL
    let transport: InMemoryTransport
    let events = InMemoryEventSink()
    let clock = VirtualClock()

    init(holdFor: Duration = .zero) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        transport = InMemoryTransport(holdFor: holdFor)
    }

    func plan(jobs: String, limits: String = #"{"concurrency": 8, "perHost": 4}"#, defaults: String = "{}",
              environment: [String: String] = [:], stateFolder: String? = nil) throws -> Plan {
        let json = #"{"version": 1, "outputDir": "\#(folder.path)", "limits": \#(limits), "defaults": \#(defaults), "jobs": [\#(jobs)]}"#
        let loaded = try ManifestLoader(environment: environment).decode(bytes: Array(json.utf8), path: "m.json", directory: folder.path)
        return try Planner(environment: environment).plan(loaded, stateFolder: stateFolder)
    }

    func executor(_ plan: Plan, environment: [String: String] = [:], failFast: Bool = false, unit: Double = 0.5,
                  store: (any CheckpointStore)? = nil, force: Bool = false) -> Executor {
        Executor(plan: plan, transport: transport, clock: clock, events: events, environment: environment,
                 options: .init(failFast: failFast, checkpoints: store, force: force), random: { unit })
    }

    func run(_ plan: Plan, environment: [String: String] = [:], failFast: Bool = false,
             store: (any CheckpointStore)? = nil, force: Bool = false) async -> RunResult {
        await executor(plan, environment: environment, failFast: failFast, store: store, force: force).run()
    }

    func cleanUp() { try? FileManager.default.removeItem(at: folder) }

    /// Ids in the order their first attempt started.
    var startOrder: [String] {
        events.events.compactMap { if case .jobStarted(let id, 1, _, _, _) = $0 { return id } else { return nil } }
    }

    static func download(_ id: String, _ url: String, to: String? = nil, extra: String = "", inner: String = "") -> String {
        #"{"id": "\#(id)"\#(extra), "download": {"url": "\#(url)", "to": "\#(to ?? id + ".bin")"\#(inner)}}"#
    }
}

extension RunResult {
    func state(_ id: String) -> JobState? { jobs.first { $0.planned.id == id }?.lifecycle.state }
    func job(_ id: String) -> RunResult.Job? { jobs.first { $0.planned.id == id } }
}
