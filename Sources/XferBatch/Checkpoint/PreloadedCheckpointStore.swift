import Synchronization

/// A store read once at the start of a run: loads come from memory, saves go through to
/// the underlying store (and update memory). A run is the only writer of its state folder
/// (it holds the lock), so the snapshot cannot go stale.
public final class PreloadedCheckpointStore: CheckpointStore {
    private let base: any CheckpointStore
    private let records: Mutex<[String: JobCheckpoint]>

    public init(_ base: any CheckpointStore) throws {
        self.base = base
        var all: [String: JobCheckpoint] = [:]
        for record in try base.all() { all[record.jobID] = record }
        self.records = Mutex(all)
    }

    public func load(_ jobID: String) throws -> JobCheckpoint? { records.withLock { $0[jobID] } }

    public func save(_ checkpoint: JobCheckpoint) throws {
        try base.save(checkpoint)
        records.withLock { $0[checkpoint.jobID] = checkpoint }
    }

    public func remove(_ jobIDs: [String]) throws {
        try base.remove(jobIDs)
        records.withLock { r in for id in jobIDs { r[id] = nil } }
    }

    public func all() throws -> [JobCheckpoint] { records.withLock { Array($0.values) }.sorted { $0.jobID < $1.jobID } }
}
