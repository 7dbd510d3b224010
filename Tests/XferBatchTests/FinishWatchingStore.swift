import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

/// An in-memory store that calls `beforeFinish` when a finished file is recorded, the
/// moment just before its rename: to do there what another process might.
final class FinishWatchingStore: CheckpointStore {
    let base = InMemoryCheckpointStore()
    let beforeFinish: @Sendable (JobCheckpoint) -> Void

    init(beforeFinish: @escaping @Sendable (JobCheckpoint) -> Void) { self.beforeFinish = beforeFinish }

    func load(_ jobID: String) throws -> JobCheckpoint? { try base.load(jobID) }
    func save(_ checkpoint: JobCheckpoint) throws { try base.save(checkpoint) }
    func remove(_ jobIDs: [String]) throws { try base.remove(jobIDs) }
    func all() throws -> [JobCheckpoint] { try base.all() }

    func saveFinishedFile(_ checkpoint: JobCheckpoint) throws {
        beforeFinish(checkpoint)
        try base.save(checkpoint)
    }
}
