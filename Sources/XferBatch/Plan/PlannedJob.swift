/// One job as it will run.
///
/// The fields live in one immutable heap box (`SharedBox<Fields>`), so a copy of a job is one
/// reference count, not one for each of its strings and arrays. Plans of 100,000 jobs are
/// walked many times (forecast, produced paths, the JSON plan, the run), and with the fields
/// inline each `for job in plan.jobs` retained and released every string of every download:
/// 28% of planning's cycles went to `swift_retain` and `swift_release`. Only what the
/// planner changes after resolving a job can be set (implicit dependencies, archive inputs,
/// a selection's new indices); setting it builds a new box, so copies never see each
/// other's changes.
public struct PlannedJob: Sendable {
    private struct Fields: Sendable {
        var id: String
        var index: Int
        var dependsOn: [String]
        var optional: Bool
        var priority: Int
        var action: JobAction
        var kind: JobKind
        var transferStorage: SharedBox<EffectiveTransfer>?
        var inputs: [JobInput]
        var warnings: [String]
    }

    private var fields: SharedBox<Fields>

    public var id: String { fields.value.id }
    /// The job's place in the plan; `Plan.selecting(_:)` renumbers the jobs it keeps.
    public var index: Int { get { fields.value.index } set { update { $0.index = newValue } } }
    /// Explicit and implicit (archive and extract inputs) dependencies, by id, in manifest order.
    public var dependsOn: [String] { get { fields.value.dependsOn } set { update { $0.dependsOn = newValue } } }
    public var optional: Bool { fields.value.optional }
    public var priority: Int { fields.value.priority }
    /// The job's action with every local path absolute (a download folder keeps its
    /// trailing `/`), URLs normalised.
    public var action: JobAction { fields.value.action }
    /// Effective transfer settings of a download or upload; nil for archives and extracts.
    public var transfer: EffectiveTransfer? { fields.value.transferStorage?.value }
    /// Shared between consecutive jobs with equal settings (see `SharedBox`).
    var transferStorage: SharedBox<EffectiveTransfer>? { fields.value.transferStorage }
    /// Inputs of an archive or extract job, resolved (the planner fills in `.job` paths).
    public var inputs: [JobInput] { get { fields.value.inputs } set { update { $0.inputs = newValue } } }
    /// Things the user should know before running (no checksum, TLS off, unset secret...).
    public var warnings: [String] { fields.value.warnings }
    /// Stored rather than derived from `action`, so that reading it never copies the action.
    public var kind: JobKind { fields.value.kind }

    /// The paths (not globs) among an archive job's inputs: a symbolic link met walking one
    /// that leads into another loses nothing (see `ArchiveInputs`).
    var packedPaths: [String] {
        inputs.compactMap { if case .path(let p) = $0, !Glob.isPattern(p) { p } else { nil } }
    }

    /// The server side of a download or upload; nil for archives and extracts.
    public var url: TransferURL? {
        switch fields.value.action {
        case .download(let d): d.url
        case .upload(let u): u.url
        case .archive, .extract: nil
        }
    }

    init(id: String, index: Int, dependsOn: [String], optional: Bool, priority: Int, action: JobAction,
         transfer: SharedBox<EffectiveTransfer>?, inputs: [JobInput], warnings: [String]) {
        fields = SharedBox(Fields(id: id, index: index, dependsOn: dependsOn, optional: optional, priority: priority,
                                  action: action, kind: action.kind, transferStorage: transfer, inputs: inputs,
                                  warnings: warnings))
    }

    /// Changes a field in a new box: other copies of this job keep the old one.
    private mutating func update(_ change: (inout Fields) -> Void) {
        var changed = fields.value
        change(&changed)
        fields = SharedBox(changed)
    }
}
