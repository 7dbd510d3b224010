/// The files a plan's jobs will write, for telling a missing input that a job will
/// produce from one nothing will.
///
/// A download's or an archive's `to` is known before the run; a download into a folder
/// names its file from the response, and an extraction fills its folder with whatever the
/// archive holds, so anything inside those folders may appear.
struct ProducedPaths {
    private var files: Set<String> = []
    private var folders: [String] = []

    init(plan: Plan) {
        for job in plan.jobs {
            switch job.action {
            case .download(let d) where d.namesFileAtRunTime: folders.append(d.to)
            case .extract(let e): folders.append(e.folder)
            default: if let out = DataflowCheck.output(of: job) { files.insert(out) }
            }
        }
    }

    /// Whether some job may write `path`.
    func mayProduce(_ path: String) -> Bool {
        files.contains(path) || folders.contains { PathText.isWithin(path, folder: $0) }
    }
}
