import Synchronization

/// Where job checkpoints live between runs: the seam between the executor and SQLite.
///
/// `SQLiteCheckpointStore` is the real one (the state folder); `InMemoryCheckpointStore`
/// serves tests. Every method may throw a `CheckpointError`.
public protocol CheckpointStore: Sendable {
    func load(_ jobID: String) throws -> JobCheckpoint?
    func save(_ checkpoint: JobCheckpoint) throws
    /// Saves several in one go (one transaction where the store has them).
    func saveAll(_ checkpoints: [JobCheckpoint]) throws
    /// Saves a job that finished with a file in place (a download or an archive); a store
    /// may group these (`PreloadedCheckpointStore` with a journal). Plain stores just save.
    func saveFinishedFile(_ checkpoint: JobCheckpoint) throws
    func remove(_ jobIDs: [String]) throws
    func all() throws -> [JobCheckpoint]
    /// Writes what the store holds to the disk for good and closes it; nothing may be
    /// saved after. Stores in memory have nothing to do.
    func close() throws
}

extension CheckpointStore {
    public func close() throws {}

    public func saveAll(_ checkpoints: [JobCheckpoint]) throws {
        for c in checkpoints { try save(c) }
    }

    public func saveFinishedFile(_ checkpoint: JobCheckpoint) throws { try save(checkpoint) }
}

/// A checkpoint store failure, with what to do about it.
public struct CheckpointError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Checkpoints in memory (tests; and runs told not to keep state).
public final class InMemoryCheckpointStore: CheckpointStore {
    private let records = Mutex<[String: JobCheckpoint]>([:])

    public init() {}

    public func load(_ jobID: String) throws -> JobCheckpoint? { records.withLock { $0[jobID] } }
    public func save(_ checkpoint: JobCheckpoint) throws { records.withLock { $0[checkpoint.jobID] = checkpoint } }
    public func remove(_ jobIDs: [String]) throws { records.withLock { r in for id in jobIDs { r[id] = nil } } }
    public func all() throws -> [JobCheckpoint] { records.withLock { Array($0.values) }.sorted { $0.jobID < $1.jobID } }
}
