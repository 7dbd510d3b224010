import Foundation

/// What a run would do with each job, from the checkpoint store and the files on disk
/// (read only: `plan` touches nothing).
public struct RunForecast: Sendable {
    public enum Action: Sendable, Equatable {
        case upToDate(path: String)
        /// `total` is the whole file's size when known: the manifest's `size`, what the
        /// server announced to the run that wrote the partial, or `plan --probe`'s answer.
        case resume(offset: Int64, total: Int64?)
        case conditional
        /// Done before, but the file's modification time changed: its SHA-256 decides
        /// between keeping it and downloading it again.
        case verify(path: String)
        /// Not done before, but a file is there and the manifest gives its SHA-256: kept
        /// if it has it, else downloaded again (`DownloadStart.existing`).
        case adopt(path: String)
        case transfer
        /// An extraction into a folder that already holds `entries` entries this job did not
        /// extract there: the run fails (`foreign-files`) unless the archive has every file
        /// in it, since extracting replaces the folder whole.
        case intoOccupiedFolder(path: String, entries: Int)
        /// A download an archive job with `removeSources` packed and removed, that archive
        /// unchanged since (`PackedSources`): nothing to transfer; `archive` holds it.
        case packed(archive: String)
        /// An upload, archive or extraction done before whose inputs a job before it may
        /// still change in the run: skipped if they are as recorded then.
        case skipIfUnchanged
        /// An upload, archive or extraction done before whose inputs changed since: sent,
        /// built or extracted again (an upload whose content is the same is not sent).
        case inputsChanged
        /// An archive or extraction done before, its inputs unchanged, whose output at `path`
        /// is gone or not the one recorded: built or extracted again.
        case outputChanged(path: String)
        /// The job would fail before transferring anything: its destination is not a file
        /// (`DestinationCheck`), its folder cannot be made or written in (`Folders`), an
        /// upload's source is a folder (`JobRunner.sourceProblem`), or a file its settings
        /// name cannot be read (`TransferFiles`).
        case fails(reason: String)
    }

    /// What is known of an archive or extract job's input sizes before the run.
    public struct InputEstimate: Sendable, Equatable {
        /// Sum of the sizes known: files already on disk, else a download's `size`.
        public var bytes: Int64
        /// Inputs whose size cannot be known before the run.
        public var unknown: Int
        /// Paths under an input folder the run would pass over, having no content (as the
        /// run's `ArchiveStats.passedOver`): `data/pipe (a named pipe)`.
        public var passedOver: [String] = []
    }

    public var actions: [Action]
    /// Per job; nil for downloads and uploads.
    public var inputs: [InputEstimate?]
    /// Bytes of known size still to download, and whether the output folder has them free.
    public var bytesNeeded: Int64
    public var enoughSpace: Bool
    /// What the servers said (`plan --probe`), by job index, for downloads without `size`.
    public var probes: [Int: ProbeAnswer]
    /// Warnings the store gives, by job index: a run would do what the manifest asks,
    /// but not what its author likely expects.
    public var warnings: [Int: String] = [:]

    /// A `refresh: conditional` download whose server sent neither ETag nor Last-Modified:
    /// nothing to ask "changed since?" with, so every run fetches it whole.
    static let noValidators = "refresh conditional, but the server sent neither ETag nor Last-Modified: every run downloads it again"

    /// `passes over 2 paths with no content to pack: data/pipe (a named pipe), data/sock (a socket)`.
    static func passesOver(_ paths: [String]) -> String {
        let named = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? " and \(paths.count - 3) more" : "")
        return "passes over \(paths.count == 1 ? "1 path" : "\(paths.count) paths") with no content to pack: \(named)"
    }

    /// - Parameter probes: what `SizeProbe` learned; a size counts like a manifest's `size`.
    public init(plan: Plan, store: any CheckpointStore, probes: [Int: ProbeAnswer] = [:]) {
        var actions: [Action] = []
        var needed: Int64 = 0
        var folders = DestinationFolders(outputDirectory: plan.outputDirectory)
        let packed = PackedSources(plan: plan, store: store)
        let renamed = RenamedJobs(plan: plan, store: store)
        var transferFiles = TransferFiles(plan: plan)
        let produced = ProducedPaths(plan: plan)
        for job in plan.jobs {
            // The fingerprint (a SHA-256) only when there is a record to compare it with.
            let record = ((try? store.load(job.id)) ?? nil) ?? renamed.records[job.id]
            let previous = record.flatMap { $0.fingerprint == JobFingerprint.of(job) ? $0 : nil }
            switch job.action {
            case .download(let d):
                if let archive = packed.sources[job.id] {
                    actions.append(.packed(archive: archive))
                    continue
                }
                if let problem = folders.problem(writing: d.to, intoFolder: d.namesFileAtRunTime, hint: DestinationCheck.downloadHint) {
                    actions.append(.fails(reason: problem))
                    continue
                }
                // What would be fetched; the decision itself goes by the manifest alone, as a run's does.
                let size = d.size ?? probes[job.index]?.size
                let partial = d.partialPath(jobID: job.id)
                switch DownloadStart.decide(d, partialPath: partial, previous: previous, boot: BootID.current) {
                case .upToDate(let path): actions.append(.upToDate(path: path))
                case .changed(let path):
                    actions.append(.verify(path: path))
                    needed.addSaturating(size ?? 0)
                case .existing(let path):
                    actions.append(.adopt(path: path))
                case .conditional: actions.append(.conditional)
                case .resume(let offset, _):
                    let total = size ?? previous?.expectedSize
                    actions.append(.resume(offset: offset, total: total))
                    needed.addSaturating(max(0, (total ?? offset) - offset))
                case .fresh:
                    actions.append(.transfer)
                    needed.addSaturating(size ?? 0)
                    if d.refresh == .conditional, previous?.phase == .done { warnings[job.index] = Self.noValidators }
                }
                // Only a request needs the CA bundle or SSH files (an up-to-date file does not).
                switch actions[actions.count - 1] {
                case .transfer, .resume, .conditional:
                    if let problem = job.transfer.flatMap({ transferFiles.problem(d.url, $0) }) { actions[actions.count - 1] = .fails(reason: problem) }
                default: break
                }
            case .archive(let a):
                if let problem = folders.problem(writing: a.to, intoFolder: false, hint: DestinationCheck.archiveHint) {
                    actions.append(.fails(reason: problem))
                } else if let special = job.inputs.lazy.compactMap(ArchiveInputs.unpackable).first {
                    actions.append(.fails(reason: special))
                } else if let problem = job.inputs.lazy.compactMap({ ArchiveInputs.problem(walking: $0, own: a.to, skipping: plan.runFolders, besides: job.packedPaths) }).first {
                    actions.append(.fails(reason: problem.message))
                } else if let missing = job.inputs.lazy.compactMap({ input -> String? in
                    guard case .path(let path) = input, !produced.mayProduce(path) else { return nil }
                    return ArchiveInputs.missing(path)
                }).first {
                    actions.append(.fails(reason: missing + ", and no job of this manifest writes it"))
                } else {
                    actions.append(previous?.phase == .done ? .skipIfUnchanged : .transfer)
                }
            case .upload(let u):
                // A missing source may be another job's output; a folder or pipe cannot become one.
                let problems = u.sourcePaths.map { path in JobRunner.sourceProblem(path).map { (path, $0) } }
                if let folder = problems.lazy.compactMap({ $0?.1 }).first(where: { $0.code == "EISDIR" || $0.code == DestinationCheck.failureCode }) {
                    actions.append(.fails(reason: folder.message))
                } else if let (_, missing) = problems.lazy.compactMap({ $0 }).first(where: { !produced.mayProduce($0.0) }) {
                    actions.append(.fails(reason: missing.message + ", and no job of this manifest writes it"))
                } else if previous?.phase != .done, let problem = job.transfer.flatMap({ transferFiles.problem(u.url, $0) }) {
                    actions.append(.fails(reason: problem))
                } else {
                    actions.append(previous?.phase == .done ? .skipIfUnchanged : .transfer)
                }
            case .extract(let e):
                // Its own earlier extraction is replaced whole, as the run decides: by the
                // record's folder, whatever the job's definition now.
                let own = record?.phase == .done && record?.finalPath == e.to
                if previous?.phase == .done {
                    actions.append(.skipIfUnchanged)
                } else if let problem = DestinationCheck.folderProblem(at: e.folder) {
                    actions.append(.fails(reason: problem))
                } else if !own, let entries = try? FileManager.default.contentsOfDirectory(atPath: e.folder), !entries.isEmpty {
                    actions.append(.intoOccupiedFolder(path: e.folder, entries: entries.count))
                } else {
                    actions.append(.transfer)
                }
            }
        }
        Self.settleDerivedJobs(&actions, plan: plan, store: store, packed: packed, renamed: renamed)
        self.actions = actions
        self.probes = probes
        self.inputs = Self.estimateInputs(plan)
        for (j, estimate) in inputs.enumerated() {
            guard let passed = estimate?.passedOver, !passed.isEmpty, !actions[j].keepsOutput else { continue }
            warnings[j] = Self.passesOver(passed)
        }
        self.bytesNeeded = needed
        self.enoughSpace = needed == 0 || (DiskSpace.free(at: plan.outputDirectory) ?? Int64.max) >= needed
    }

    /// The downloads a run would transfer whose size the manifest does not give: what
    /// `plan --probe` asks the servers about.
    public func unsizedTransfers(in plan: Plan) -> [Int] {
        plan.jobs.indices.filter { j in
            guard case .download(let d) = plan.jobs[j].action, d.size == nil else { return false }
            switch actions[j] {
            case .transfer, .resume, .verify, .conditional: return true
            case .upToDate, .adopt, .skipIfUnchanged, .inputsChanged, .outputChanged, .fails, .packed, .intoOccupiedFolder: return false
            }
        }
    }

    /// Words for the text plan.
    public static func describe(_ action: Action, kind: JobKind) -> String {
        switch action {
        case .upToDate(let path):
            switch kind {
            case .download, .upload: "up to date (\(path)): nothing to transfer"
            case .archive: "up to date (\(path)): nothing to build"
            case .extract: "up to date (\(path)): nothing to extract"
            }
        case .resume(let offset, let total?) where total > 0:
            "resume at \(ByteSize.format(offset)) of \(ByteSize.format(total)) (\(min(100, offset * 100 / total))%)"
        case .resume(let offset, _): "resume at \(ByteSize.format(offset))"
        case .conditional: "refresh if changed (conditional request)"
        case .verify(let path): "verify \(path) (modified since the run that wrote it): kept if its SHA-256 matches, else downloaded again"
        case .adopt(let path): "check \(path) (there, but not downloaded by a run of this manifest): kept if it has the manifest's SHA-256, else downloaded again"
        case .transfer:
            switch kind {
            case .download: "download"
            case .upload: "upload"
            case .archive: "build"
            case .extract: "extract"
            }
        case .skipIfUnchanged: "skip if its inputs are unchanged once the jobs before it have run"
        case .inputsChanged:
            switch kind {
            case .upload: "send again: the source changed since it was sent (not sent if its content is the same)"
            case .archive: "build again: an input changed since the last build"
            case .extract: "extract again: the archive changed since the last extraction"
            case .download: "download"
            }
        case .outputChanged(let path):
            kind == .extract ? "extract again: \(path) is no longer there" : "build again: \(path) is gone or not the file the last build wrote"
        case .intoOccupiedFolder(let path, let entries):
            "extract, but \(path) already holds \(entries) entr\(entries == 1 ? "y" : "ies") this job did not put there: the run fails unless the archive has every file in it (move them away or extract elsewhere)"
        case .fails(let reason): "fails: \(reason)"
        case .packed(let archive): "up to date: packed into \(archive), which removed it (removeSources)"
        }
    }

    /// The `run.action` value in the JSON plan.
    public static func name(_ action: Action) -> String {
        switch action {
        case .upToDate: "up-to-date"
        case .resume: "resume"
        case .conditional: "conditional"
        case .verify: "verify"
        case .adopt: "adopt"
        case .transfer: "transfer"
        case .skipIfUnchanged: "skip-if-unchanged"
        case .inputsChanged: "inputs-changed"
        case .outputChanged: "output-changed"
        case .intoOccupiedFolder: "into-occupied-folder"
        case .fails: "fails"
        case .packed: "packed"
        }
    }
}

/// What a run would find at each destination, for `plan`: looked up once per folder, since
/// most jobs share a few (100,000 jobs in 100 folders: 100 walks, not 100,000), and a
/// destination in a folder that does not exist yet needs no look of its own. Before a first
/// run the output folder itself is missing, and every destination in it is settled by one
/// byte comparison (`bench/plan-scale`: the per-job look cost 2,000 instructions a job).
private struct DestinationFolders {
    private var known: [String: Result<Bool, Folders.CreationError>] = [:]
    /// The output folder, when it does not exist and nothing stops its creation.
    private let creatableOutput: String?

    init(outputDirectory: String) {
        let toCreate = (try? Folders.missing(outputDirectory)) ?? []
        let creatable = !toCreate.isEmpty && Folders.refusal(writingIn: outputDirectory, creating: toCreate) == nil
        creatableOutput = creatable ? outputDirectory : nil
    }

    /// Why a run would fail before writing `path` (a file, or a folder with `intoFolder`),
    /// or nil.
    mutating func problem(writing path: String, intoFolder: Bool, hint: String) -> String? {
        if let creatableOutput, PathText.isWithin(path, folder: creatableOutput) { return nil }
        let folder = intoFolder ? path : PathText.parent(path)
        let exists: Result<Bool, Folders.CreationError>
        if let cached = known[folder] {
            exists = cached
        } else {
            exists = Result { () throws(Folders.CreationError) in
                let toCreate = try Folders.missing(folder)
                if let refused = Folders.refusal(writingIn: folder, creating: toCreate) { throw refused }
                return toCreate.isEmpty
            }
            known[folder] = exists
        }
        switch exists {
        case .failure(let obstacle): return obstacle.message
        case .success(false): return nil  // a folder to create holds nothing yet
        case .success(true): return intoFolder ? nil : DestinationCheck.problem(at: path, folderHint: hint)
        }
    }
}
