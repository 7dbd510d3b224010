/// A record of a job the manifest no longer has (removed, or its id changed).
///
/// `run` never prunes these: a job taken out of the manifest for a night keeps its
/// progress for when it comes back. But a partial download it left holds disk space that
/// nothing else will free, so `status` lists them and `reset --stale` forgets them and
/// deletes their partial files.
public struct StaleRecord: Sendable, Equatable {
    public var id: String
    /// The partial file the record names, when it is still there.
    public var partialPath: String?
    public var partialBytes: Int64

    public init(id: String, partialPath: String? = nil, partialBytes: Int64 = 0) {
        self.id = id
        self.partialPath = partialPath
        self.partialBytes = partialBytes
    }

    /// The store's records whose job id `plan` does not have, by id, but for those a
    /// renamed job takes over (`RenamedJobs`).
    public static func all(plan: Plan, store: any CheckpointStore) throws -> [StaleRecord] {
        // A set, not `plan.job(_:)` per record: that scan made `status` of 100,000 jobs
        // take 14 s.
        let ids = Set(plan.jobs.map(\.id)).union(RenamedJobs(plan: plan, store: store).takenOver)
        return try store.all().filter { !ids.contains($0.jobID) }.map { record in
            guard let path = record.partialPath, let size = DownloadStart.partialSize(of: path) else { return StaleRecord(id: record.jobID) }
            return StaleRecord(id: record.jobID, partialPath: path, partialBytes: size)
        }
    }

    /// `status`'s line about them, or nil when there are none: `2 records of jobs no
    /// longer in the manifest (old-a, old-b), with 1 partial file of 1.5 MiB; reset --stale
    /// forgets them`. Lists at most five ids.
    public static func summary(_ records: [StaleRecord]) -> String? {
        guard !records.isEmpty else { return nil }
        let ids = records.prefix(5).map(\.id).joined(separator: ", ") + (records.count > 5 ? ", …" : "")
        var line = "\(records.count) record\(records.count == 1 ? "" : "s") of jobs no longer in the manifest (\(ids))"
        let partials = records.filter { $0.partialPath != nil }
        if !partials.isEmpty {
            let bytes = partials.reduce(Int64(0)) { $0 + $1.partialBytes }
            line += ", with \(partials.count) partial file\(partials.count == 1 ? "" : "s") of \(ByteSize.format(bytes))"
        }
        return line + "; reset --stale forgets them\n"
    }
}
