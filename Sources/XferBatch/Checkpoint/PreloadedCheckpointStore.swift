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
///
/// A group is written outside the lock that finishing jobs take (holding it for the write
/// made the other threads wait, spinning in the kernel, on each commit: releasing it took
/// about 6% of a 2,000-file run's CPU, 30 alternating rounds). Writes to the base store are
/// ordered by a second lock, taken first: a group taken from `pending` is written before
/// any later save of its jobs.
public final class PreloadedCheckpointStore: CheckpointStore {
    /// Finished files per group commit, and the longest a finished job waits for one.
    public static let defaultGroupSize = 256
    public static let maxDelay: Duration = .seconds(1)

    private struct State {
        var records: [String: JobCheckpoint]
        var pending: [JobCheckpoint] = []
        var lastCommit = ContinuousClock.now
        /// A thread has claimed the next group commit.
        var committing = false
    }

    private let base: any CheckpointStore
    private let journal: DoneJournal?
    private let groupSize: Int
    private let state: Mutex<State>
    /// Held for every write to `base`; taken before `state`, never after it.
    private let writes = Mutex(())
    /// Journal records adopted on opening (a killed run's finished jobs).
    public let recovered: Int

    /// - Parameters:
    ///   - journal: the journal's path, or nil to write every save at once.
    ///   - readOnly: adopt the journal's intact records in memory only, writing nothing
    ///     (`plan` and `status` show a killed run's finished jobs without touching state).
    ///   - groupSize: finished files per group commit.
    ///   - expectedJobs: how many jobs the run has, so that the records' table is sized
    ///     once instead of being copied into a larger one eleven times as a fresh run of
    ///     2,000 jobs fills it.
    public init(_ base: any CheckpointStore, journal journalPath: String? = nil, readOnly: Bool = false,
                groupSize: Int = defaultGroupSize, expectedJobs: Int = 0) throws {
        self.base = base
        self.groupSize = groupSize
        var all: [String: JobCheckpoint] = [:]
        all.reserveCapacity(expectedJobs)
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
        try writes.withLock { _ in
            try state.withLock { s in
                // A grouped record of this job must not land after (and over) this one.
                if s.pending.contains(where: { $0.jobID == checkpoint.jobID }) { try commitAll(&s) }
                try base.save(checkpoint)
                s.records[checkpoint.jobID] = checkpoint
            }
        }
    }

    public func saveFinishedFile(_ checkpoint: JobCheckpoint) throws {
        guard let journal else { return try save(checkpoint) }
        let line = DoneJournal.line(for: checkpoint)  // outside the lock: jobs finish on several threads
        let due = try state.withLock { s in
            try journal.append(line)
            s.pending.append(checkpoint)
            s.records[checkpoint.jobID] = checkpoint
            guard !s.committing, s.pending.count >= groupSize || ContinuousClock.now - s.lastCommit >= Self.maxDelay else { return false }
            s.committing = true
            return true
        }
        if due { try commitGroup() }
    }

    /// Writes the group that is pending while other jobs go on finishing: their lines go
    /// to the journal's other file, which this commit leaves alone.
    private func commitGroup() throws {
        try writes.withLock { _ in
            let (group, segment) = state.withLock { s in
                s.lastCommit = .now
                defer { s.pending.removeAll(keepingCapacity: true) }
                return (s.pending, journal?.rotate())
            }
            defer { state.withLock { $0.committing = false } }
            do {
                if !group.isEmpty { try base.saveAll(group) }
            } catch {
                // Still in the journal's file (not emptied): committed with the next group.
                state.withLock { $0.pending.insert(contentsOf: group, at: 0) }
                throw error
            }
            if let segment { journal?.truncate(segment) }
        }
    }

    /// Commits what is grouped and empties the journal; call it when the run ends.
    public func flush() throws {
        try writes.withLock { _ in try state.withLock { s in try commitAll(&s) } }
    }

    /// Commits what is grouped, then closes the underlying store (see `CheckpointStore.close`).
    public func close() throws {
        try flush()
        try writes.withLock { _ in try base.close() }
    }

    /// Commits every pending record; with `writes` held no group is being written, so
    /// both journal files hold only lines that are now committed.
    private func commitAll(_ s: inout State) throws {
        s.lastCommit = .now
        guard !s.pending.isEmpty else { return }
        try base.saveAll(s.pending)
        s.pending.removeAll(keepingCapacity: true)
        journal?.truncate()
    }

    public func remove(_ jobIDs: [String]) throws {
        try writes.withLock { _ in
            try state.withLock { s in
                try commitAll(&s)
                try base.remove(jobIDs)
                for id in jobIDs { s.records[id] = nil }
            }
        }
    }

    public func all() throws -> [JobCheckpoint] { state.withLock { Array($0.records.values) }.sorted { $0.jobID < $1.jobID } }
}
