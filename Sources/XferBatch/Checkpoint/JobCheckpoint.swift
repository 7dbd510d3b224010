/// What the state folder remembers of one job between runs. No secret is ever stored:
/// only paths, sizes, validators, digests and the last error's text.
public struct JobCheckpoint: Sendable, Equatable {
    public enum Phase: String, Sendable {
        /// An attempt was under way (a killed run leaves this; recovery reads it as interrupted).
        case running
        /// Finished and verified; `finalPath`, `bytes` and `sha256` describe the result.
        case done
        case failed
    }

    public var jobID: String
    /// SHA-256 of the job's effective definition: an edited job starts fresh.
    public var fingerprint: String
    public var phase: Phase
    public var attempts: Int
    /// Bytes of the final file (done) or written so far (running).
    public var bytes: Int64
    public var expectedSize: Int64?
    /// Validators of the entity, for `If-Range` and conditional refreshes.
    public var etag: String?
    public var lastModified: String?
    /// The partial file and the boot it was written in (see `DownloadStart`).
    public var partialPath: String?
    public var bootID: String?
    /// Bytes of the partial flushed to the disk (`fdatasync`) before this record was saved:
    /// the only part trusted after a reboot or power loss.
    public var durableBytes: Int64?
    public var finalPath: String?
    public var sha256: String?
    /// The final file's modification time when it was recorded (`FileStamp.modified`): a
    /// file of the recorded size whose time differs is checked again by its SHA-256.
    /// Nil in records older than this field, which are then trusted by size.
    public var finalModified: Int64?
    /// Seconds since 1970.
    public var updatedAt: Double
    public var lastError: String?

    public init(jobID: String, fingerprint: String, phase: Phase, attempts: Int = 0, bytes: Int64 = 0, expectedSize: Int64? = nil,
                etag: String? = nil, lastModified: String? = nil, partialPath: String? = nil, bootID: String? = nil,
                finalPath: String? = nil, sha256: String? = nil, updatedAt: Double = 0, lastError: String? = nil,
                durableBytes: Int64? = nil, finalModified: Int64? = nil) {
        self.jobID = jobID
        self.fingerprint = fingerprint
        self.phase = phase
        self.attempts = attempts
        self.bytes = bytes
        self.expectedSize = expectedSize
        self.etag = etag
        self.lastModified = lastModified
        self.partialPath = partialPath
        self.bootID = bootID
        self.finalPath = finalPath
        self.sha256 = sha256
        self.updatedAt = updatedAt
        self.lastError = lastError
        self.durableBytes = durableBytes
        self.finalModified = finalModified
    }
}

extension JobCheckpoint {
    /// Whether the file at `path` is still the one this record describes: the recorded
    /// size, and the recorded modification time when the record has one (a record older
    /// than that field: the size alone). An archive edited or replaced since is not.
    func describesFile(at path: String) -> Bool {
        guard let stamp = FileStamp.of(path) else { return false }
        return stamp.size == bytes && (finalModified ?? stamp.modified) == stamp.modified
    }

    /// Whether this record says its job extracted an archive into `extract`'s folder: the
    /// folder is then the job's own, replaced whole by the next extraction and removed by
    /// `clean --outputs`. Any other folder there may hold someone else's files, which
    /// neither may delete.
    func hasExtracted(_ extract: Extract) -> Bool {
        phase == .done && finalPath == extract.to
    }

    /// Whether `upload`'s sources are as they were when this record's upload was sent
    /// (their stamp, `FileStamp.sources`, kept in `etag`): what `plan` and `status` judge
    /// by, as the run does before reading anything.
    func sentAsTheyAre(_ upload: Upload) -> Bool {
        FileStamp.sources(upload.sourcePaths) == etag
    }
}
