import Foundation

/// One job's state as the checkpoint store and the file system tell it (`xferbatch status`).
public struct JobStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Finished and verified; the file is in place.
        case done
        /// A partial download is kept (`percent` when the size is known).
        case partial
        case failed
        /// Nothing recorded, or the job changed since (it will run).
        case pending
    }

    public var id: String
    public var state: State
    public var path: String?
    public var sha256: String?
    public var bytes: Int64
    public var expected: Int64?
    /// The error that ended the job's last attempt (failed, or partial after a failure).
    public var lastError: String?
    /// Why a job with a record is pending: a finished one will run again (its upload source
    /// changed, its output was removed), or a started one has nothing to continue.
    public var reason: String?
    /// A download whose file a `removeSources` archive packed and removed: that archive
    /// (see `PackedSources`).
    public var packedInto: String?

    public var percent: Int? {
        guard let expected, expected > 0 else { return nil }
        return Int(min(100, bytes * 100 / expected))
    }

    /// Every job of `plan`, from `store`. A record with another fingerprint is stale.
    /// `runUnderWay`: a run holds the state folder (`RunLock.holder`), so a job started
    /// with nothing kept may be one it is doing now, not one an interrupted run left.
    public static func all(plan: Plan, store: any CheckpointStore, runUnderWay: Bool = false) throws -> [JobStatus] {
        let packed = PackedSources(plan: plan, store: store)
        let renamed = RenamedJobs(plan: plan, store: store)
        return try plan.jobs.map { job in
            guard let record = try store.load(job.id) ?? renamed.records[job.id], record.fingerprint == JobFingerprint.of(job) else {
                return JobStatus(id: job.id, state: .pending, bytes: 0)
            }
            switch record.phase {
            case .done:
                if let archive = packed.sources[job.id] {
                    return JobStatus(id: job.id, state: .done, path: record.finalPath, sha256: record.sha256, bytes: record.bytes,
                                     packedInto: archive)
                }
                // An upload whose source changed since (an interrupted run meant to send the
                // new one): the server holds what was sent, which is no longer the source.
                if case .upload(let u) = job.action, !record.sentAsTheyAre(u) {
                    return JobStatus(id: job.id, state: .pending, sha256: record.sha256, bytes: record.bytes,
                                     reason: "the source changed since it was sent")
                }
                let present = record.finalPath.map { DownloadStart.size(of: $0) != nil } ?? (job.kind == .upload)
                return JobStatus(id: job.id, state: present ? .done : .pending, path: record.finalPath, sha256: record.sha256,
                                 bytes: record.bytes, reason: present ? nil : "the output was removed")
            case .running, .failed:
                let partial = record.partialPath.flatMap(DownloadStart.partialSize(of:)) ?? 0
                if partial > 0 {
                    return JobStatus(id: job.id, state: .partial, path: record.partialPath, bytes: partial, expected: record.expectedSize,
                                     lastError: record.lastError)
                }
                guard record.lastError == nil else { return JobStatus(id: job.id, state: .failed, bytes: 0, lastError: record.lastError) }
                // Started by an interrupted run (or by the run under way), with nothing to
                // continue: said, or it read as a job no run ever started.
                let lost = record.partialPath.flatMap { DownloadStart.partialSize(of: $0) == nil ? Self.whyNoPartial(at: $0) : nil }
                let why = lost ?? (runUnderWay ? "started, no data yet" : "started, but no data was kept")
                return JobStatus(id: job.id, state: .pending, bytes: 0, reason: why)
            }
        }
    }

    /// Why the partial file at `path` is no progress: gone, or replaced by what a run
    /// never writes through (a link, a pipe, a file with other names), which the next
    /// attempt removes before it starts the file over, or by a folder, which fails it
    /// (`PartialFile`).
    static func whyNoPartial(at path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "its partial file is gone" }
        if info.st_mode & S_IFMT == S_IFDIR { return "a folder has its partial file's name; the next attempt fails until it is moved" }
        let what = info.st_mode & S_IFMT == S_IFREG ? "a file with other names (hard links)" : DestinationCheck.kind(info.st_mode)
        return "its partial file was replaced by \(what), which the next run removes to start over"
    }
}
