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

/// One job as it will run.
public struct PlannedJob: Sendable {
    public var id: String
    public var index: Int
    /// Explicit and implicit (archive and extract inputs) dependencies, by id, in manifest order.
    public var dependsOn: [String]
    public var optional: Bool
    public var priority: Int
    /// The job's action with every local path absolute (a download folder keeps its
    /// trailing `/`), URLs normalised.
    public private(set) var action: JobAction
    /// Effective transfer settings of a download or upload; nil for archives and extracts.
    public var transfer: EffectiveTransfer? { transferStorage?.value }
    /// Shared between consecutive jobs with equal settings (see `SharedBox`).
    var transferStorage: SharedBox<EffectiveTransfer>?
    /// Inputs of an archive or extract job, resolved.
    public var inputs: [JobInput]
    /// The paths (not globs) among an archive job's inputs: a symbolic link met walking one
    /// that leads into another loses nothing (see `ArchiveInputs`).
    var packedPaths: [String] {
        inputs.compactMap { if case .path(let p) = $0, !Glob.isPattern(p) { p } else { nil } }
    }
    /// Things the user should know before running (no checksum, TLS off, unset secret...).
    public var warnings: [String]

    /// Stored rather than derived from `action`, so that reading it never copies the action.
    public let kind: JobKind

    /// The server side of a download or upload; nil for archives and extracts.
    public var url: TransferURL? {
        switch action {
        case .download(let d): d.url
        case .upload(let u): u.url
        case .archive, .extract: nil
        }
    }

    init(id: String, index: Int, dependsOn: [String], optional: Bool, priority: Int, action: JobAction,
         transfer: SharedBox<EffectiveTransfer>?, inputs: [JobInput], warnings: [String]) {
        self.id = id
        self.index = index
        self.dependsOn = dependsOn
        self.optional = optional
        self.priority = priority
        self.action = action
        self.kind = action.kind
        self.transferStorage = transfer
        self.inputs = inputs
        self.warnings = warnings
    }
}

/// One input of an archive or extract job.
public enum JobInput: Sendable, Equatable {
    /// The output file of another job (absolute path, or a folder ending in `/` when the
    /// download's name is decided at run time).
    case job(id: String, path: String)
    /// An absolute path or glob under `outputDir`.
    case path(String)
}
