import Foundation
import Synchronization

/// A store read once at the start of a run: loads come from memory, saves go through to
/// the underlying store (and update memory). A run is the only writer of its state folder
/// (it holds the lock), so the snapshot cannot go stale.
///
/// With a journal, finished files are committed in groups: each is appended to the
/// `DoneJournal` as it lands (one `write(2)`, safe against process death) and written to the
/// base store with others, every `groupSize` jobs or `maxDelay`, and at `flush()`. On
/// opening, journal lines a killed run left are adopted when their file is intact. Other
/// saves (attempts under way, failures, uploads, extractions) are written at once.
public final class PreloadedCheckpointStore: CheckpointStore {
    /// Finished files per group commit, and the longest a finished job waits for one.
    public static let groupSize = 256
    public static let maxDelay: Duration = .seconds(1)

    private struct State {
        var records: [String: JobCheckpoint]
        var pending: [JobCheckpoint] = []
        var lastCommit = ContinuousClock.now
    }

    private let base: any CheckpointStore
    private let journal: DoneJournal?
    private let state: Mutex<State>
    /// Journal records adopted on opening (a killed run's finished jobs).
    public let recovered: Int

    /// - Parameters:
    ///   - journal: the journal's path, or nil to write every save at once.
    ///   - readOnly: adopt the journal's intact records in memory only, writing nothing
    ///     (`plan` and `status` show a killed run's finished jobs without touching state).
    public init(_ base: any CheckpointStore, journal journalPath: String? = nil, readOnly: Bool = false) throws {
        self.base = base
        var all: [String: JobCheckpoint] = [:]
        for record in try base.all() { all[record.jobID] = record }
        var adopted: [JobCheckpoint] = []
        if readOnly, let journalPath {
            adopted = DoneJournal.intactRecords(at: journalPath)
            for record in adopted { all[record.jobID] = record }
            self.journal = nil
        } else if let journalPath {
            let journal = try DoneJournal(path: journalPath)
            adopted = journal.intactRecords()
            try base.saveAll(adopted)
            journal.truncate()
            for record in adopted { all[record.jobID] = record }
            self.journal = journal
        } else {
            self.journal = nil
        }
        self.recovered = adopted.count
        self.state = Mutex(State(records: all))
    }

    public func load(_ jobID: String) throws -> JobCheckpoint? { state.withLock { $0.records[jobID] } }

    public func save(_ checkpoint: JobCheckpoint) throws {
        try state.withLock { s in
            // A grouped record of this job must not land after (and over) this one.
            if s.pending.contains(where: { $0.jobID == checkpoint.jobID }) { try commitPending(&s) }
            try base.save(checkpoint)
            s.records[checkpoint.jobID] = checkpoint
        }
    }

    public func saveFinishedFile(_ checkpoint: JobCheckpoint) throws {
        guard let journal else { return try save(checkpoint) }
        let line = DoneJournal.line(for: checkpoint)  // outside the lock: jobs finish on several threads
        try state.withLock { s in
            try journal.append(line)
            s.pending.append(checkpoint)
            s.records[checkpoint.jobID] = checkpoint
            if s.pending.count >= Self.groupSize || ContinuousClock.now - s.lastCommit >= Self.maxDelay { try commitPending(&s) }
        }
    }

    /// Commits what is grouped and empties the journal; call it when the run ends.
    public func flush() throws {
        try state.withLock { s in try commitPending(&s) }
    }

    private func commitPending(_ s: inout State) throws {
        s.lastCommit = .now
        guard !s.pending.isEmpty else { return }
        try base.saveAll(s.pending)
        s.pending.removeAll(keepingCapacity: true)
        journal?.truncate()  // everything in it is committed (appends happen under this lock)
    }

    public func remove(_ jobIDs: [String]) throws {
        try state.withLock { s in
            try commitPending(&s)
            try base.remove(jobIDs)
            for id in jobIDs { s.records[id] = nil }
        }
    }

    public func all() throws -> [JobCheckpoint] { state.withLock { Array($0.records.values) }.sorted { $0.jobID < $1.jobID } }
}
