/// What a run would do: every job with its effective settings and resolved paths, in a
/// dependency graph. Built by `Planner` without touching the network or the disk.
public struct Plan: Sendable {
    public var name: String?
    /// The manifest path as the user gave it.
    public var manifestPath: String
    /// The manifest was read from standard input or a pipe (`-`, `<(generate)`), not a
    /// file: `directory` is the current folder (see `ManifestLoader.load`).
    public var manifestIsStream: Bool
    /// Absolute folder of the manifest.
    public var directory: String
    /// Absolute `outputDir`.
    public var outputDirectory: String
    public var limits: Limits
    /// Jobs in manifest order; `jobs[i].index == i`.
    public var jobs: [PlannedJob]
    public var graph: JobGraph
    /// What a run would do, when the plan was made with a checkpoint store.
    public var forecast: RunForecast?
    /// The state folder given instead of the default (`--state`), absolute.
    public var givenStateFolder: String?
    /// The jobs named on the command line, when the plan holds only them and what they
    /// depend on (see `selecting(_:)`); nil: the whole manifest.
    public var selection: Selection?

    public init(name: String?, manifestPath: String, directory: String, outputDirectory: String,
                limits: Limits, jobs: [PlannedJob], graph: JobGraph) {
        self.name = name
        self.manifestPath = manifestPath
        self.manifestIsStream = manifestPath == ManifestLoader.standardInputName
        self.directory = directory
        self.outputDirectory = outputDirectory
        self.limits = limits
        self.jobs = jobs
        self.graph = graph
        var counts: [JobKind: Int] = [:]
        for i in jobs.indices { counts[jobs[i].kind, default: 0] += 1 }
        self.kindCounts = counts
    }

    private let kindCounts: [JobKind: Int]

    /// Count of jobs of a kind.
    public func count(_ kind: JobKind) -> Int { kindCounts[kind] ?? 0 }

    /// The job with `id`, if any.
    public func job(_ id: String) -> PlannedJob? { jobs.first { $0.id == id } }
}

/// One input of an archive or extract job.
public enum JobInput: Sendable, Equatable {
    /// The output file of another job (absolute path, or a folder ending in `/` when the
    /// download's name is decided at run time).
    case job(id: String, path: String)
    /// An absolute path or glob under `outputDir`.
    case path(String)
}
