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
        files.reserveCapacity(plan.jobs.count)
        for job in plan.jobs {
            guard let out = DataflowCheck.output(of: job) else { continue }  // an upload writes no local file
            switch job.kind {
            case .download where Download.namesFileAtRunTime(to: out): folders.append(out)
            case .extract: folders.append(Extract.folder(to: out))
            default: files.insert(out)
            }
        }
    }

    /// Whether some job may write `path`.
    func mayProduce(_ path: String) -> Bool {
        files.contains(path) || folders.contains { PathText.isWithin(path, folder: $0) }
    }
}
