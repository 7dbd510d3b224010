import Foundation

/// What `xferbatch reset` does to the jobs it is given: deletes their partial files, then
/// forgets their records, so that the next run starts them over.
///
/// The partials go first, found through the store opened for reading: a full disk is
/// often full of them, and opening the store for writing needs room (SQLite's `-shm`
/// file), so a reset that began with it stopped at "the disk is full" with the partial
/// still there. A record left after its partial went (the second step failing) is safe: a
/// run finds the partial missing and starts the download over.
public struct Reset: Sendable, Equatable {
    public var jobs = 0
    public var partials = 0

    /// Deletes the recorded partial files of `ids` (as `recorded` knows them), then
    /// forgets their records in the store `writable` opens.
    public static func run(_ ids: [String], recorded: any CheckpointStore,
                           writable: () throws -> any CheckpointStore) throws -> Reset {
        var done = Reset(jobs: ids.count)
        for id in ids {
            if let partial = try recorded.load(id)?.partialPath, unlink(partial) == 0 { done.partials += 1 }
        }
        try writable().remove(ids)
        return done
    }

    /// `reset 2 jobs; deleted 1 partial file`.
    public var text: String {
        "reset \(jobs) job\(jobs == 1 ? "" : "s"); deleted \(partials) partial file\(partials == 1 ? "" : "s")\n"
    }
}
