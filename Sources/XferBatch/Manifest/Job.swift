/// One unit of work in the graph: a download, an upload, an archive or an extraction.
public struct Job: Sendable {
    /// Unique within the manifest; `[A-Za-z0-9._-]+`.
    public var id: String
    /// Position in the manifest's `jobs` array (used for ordering ties and error paths).
    public var index: Int
    /// Ids of jobs that must succeed first, as written (the planner adds implicit ones).
    public var dependsOn: [String]
    /// When true, dependents run even if this job fails.
    public var optional: Bool
    /// Higher runs first among ready jobs; default 0.
    public var priority: Int
    /// Lets a destination leave `outputDir` (absolute paths, `..`).
    public var allowOutsideOutputDir: Bool
    public var action: JobAction

    public init(id: String, index: Int, dependsOn: [String] = [], optional: Bool = false, priority: Int = 0,
                allowOutsideOutputDir: Bool = false, action: JobAction) {
        self.id = id
        self.index = index
        self.dependsOn = dependsOn
        self.optional = optional
        self.priority = priority
        self.allowOutsideOutputDir = allowOutsideOutputDir
        self.action = action
    }

    public var kind: JobKind { action.kind }
}

/// What a job does; exactly one per job.
public enum JobAction: Sendable {
    case download(Download)
    case upload(Upload)
    case archive(Archive)
    case extract(Extract)

    public var kind: JobKind {
        switch self {
        case .download: .download
        case .upload: .upload
        case .archive: .archive
        case .extract: .extract
        }
    }
}

/// The kind of a job, as named in the manifest and reports.
public enum JobKind: String, Sendable, CaseIterable {
    case download, upload, archive, extract
}
