import Foundation

extension RunForecast {
    /// Settles what a run would do with upload, archive and extract jobs done before, as
    /// the run decides it: their inputs as recorded (names, sizes, inodes, modification
    /// times) -> up to date; another stamp -> `inputsChanged`.
    ///
    /// Why: "skip if unchanged" left a nightly job's owner to guess whether tonight's run
    /// sends the 10 GiB backup again. Only a job whose inputs the run itself may still
    /// change (a job it depends on would transfer, resume or rebuild) keeps that answer:
    /// what it will find is known only then. Jobs are settled in wave order, so a
    /// dependency's answer is final when its dependents read it.
    static func settleDerivedJobs(_ actions: inout [Action], plan: Plan, store: any CheckpointStore, packed: PackedSources,
                                  renamed: RenamedJobs) {
        for wave in plan.graph.waves {
            for j in wave where actions[j] == .skipIfUnchanged {
                let job = plan.jobs[j]
                guard let record = ((try? store.load(job.id)) ?? nil) ?? renamed.records[job.id], record.phase == .done else { continue }
                if packed.archives.contains(job.id), let path = record.finalPath {
                    actions[j] = .upToDate(path: path)  // as `ArchiveRunner.standing`: its sources are gone
                    continue
                }
                guard plan.graph.dependencies[j].allSatisfy({ actions[$0].keepsOutput }),
                      let verdict = verdict(job, record, plan: plan, store: store) else { continue }
                actions[j] = verdict
            }
        }
    }

    /// `upToDate` when the job's inputs, and its output, are as its record says;
    /// `inputsChanged` or `outputChanged` as the run would find them; nil when that cannot
    /// be told before the run (an input job without a file on record, an input that cannot
    /// be read: the run reports those).
    private static func verdict(_ job: PlannedJob, _ record: JobCheckpoint, plan: Plan, store: any CheckpointStore) -> Action? {
        let output: (String) -> String? = { id in ((try? store.load(id)) ?? nil)?.finalPath }
        let inputs: String
        var outputThere: (String) -> Bool = { _ in true }
        switch job.action {
        case .upload(let u):
            let sent = record.sentAsTheyAre(u)
            return sent ? .upToDate(path: u.url.redacted) : .inputsChanged
        case .archive(let a):
            guard let files = try? ArchiveRunner.inputFiles(of: job, prefix: a.prefix, own: a.to, outputDirectory: plan.outputDirectory,
                                                            runFolders: plan.runFolders, output: output) else { return nil }
            inputs = FileStamp.inputs(files).digest
            outputThere = record.describesFile(at:)
        case .extract:
            guard case .job(let source, _)? = job.inputs.first, let archive = output(source) else { return nil }
            inputs = FileStamp.inputs([(archive, archive)]).digest
            outputThere = ExtractRunner.isFolder
        case .download:
            return nil
        }
        guard inputs == record.etag else { return .inputsChanged }
        guard let path = record.finalPath else { return nil }
        return outputThere(path) ? .upToDate(path: path) : .outputChanged(path: path)
    }
}

extension RunForecast.Action {
    /// Whether a run would leave the job's output as it is now, so that jobs reading it
    /// can be judged before the run.
    var keepsOutput: Bool {
        switch self {
        case .upToDate, .packed: true
        case .resume, .conditional, .verify, .adopt, .transfer, .inputsChanged, .outputChanged, .skipIfUnchanged, .intoOccupiedFolder, .fails: false
        }
    }
}
