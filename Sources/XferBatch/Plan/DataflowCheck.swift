/// Checks who writes and who reads which file: no two jobs may write one path, and a
/// job reading a path another job writes must depend on that job (else it could run
/// before the file exists, or read it half-written).
struct DataflowCheck {
    let jobs: [Job]
    let planned: [PlannedJob]
    /// Each job's output file (`output(of:)`), computed once by the planner.
    let outputs: [String?]
    let graph: JobGraph

    func problems() -> [Diagnostic] {
        var problems: [Diagnostic] = []
        var writer: [String: Int] = [:]
        writer.reserveCapacity(outputs.count)
        for (i, output) in outputs.enumerated() {
            guard let out = output, !out.hasSuffix("/") else { continue }
            if let first = writer[out] {
                problems.append(Diagnostic(JobPath.action(jobs[i], "to"),
                                           "writes \(out), which job \"\(planned[first].id)\" also writes; give each job its own destination"))
            } else {
                writer[out] = i
            }
        }
        for i in planned.indices where planned[i].kind != .download {
            let p = planned[i]
            for (path, jsonPath) in reads(p) {
                guard let w = writer[path], w != p.index, !graph.depends(p.index, on: w) else { continue }
                problems.append(Diagnostic(jsonPath,
                                           "reads \(path), which job \"\(planned[w].id)\" writes, but does not depend on it; add \"dependsOn\": [\"\(planned[w].id)\"]"))
            }
            if case .archive = p.action {
                problems += globInputs(p, writer: writer)
            }
        }
        return problems
    }

    /// The file a job produces: a download's destination or an archive's file.
    static func output(of job: PlannedJob) -> String? {
        switch job.action {
        case .download(let d): d.to
        case .archive(let a): a.to
        case .upload: nil
        }
    }

    private func reads(_ p: PlannedJob) -> [(String, JSONPath)] {
        let job = jobs[p.index]
        switch p.action {
        case .upload(let u):
            switch u.body {
            case .file(let path): return [(path, JobPath.action(job, "from"))]
            case .multipart(let form):
                return form.files.enumerated().map { k, f in
                    (f.path, JobPath.action(job, "multipart").appending("files").appending(index: k).appending("path"))
                }
            }
        case .archive(let a):
            return p.archiveInputs.enumerated().compactMap { k, input in
                guard case .path(let path) = input, !Glob.isPattern(path) else { return nil }
                _ = a
                return (path, JobPath.action(job, "from").appending(index: k))
            }
        case .download:
            return []
        }
    }

    /// An archive glob must only match outputs of jobs the archive depends on.
    private func globInputs(_ p: PlannedJob, writer: [String: Int]) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (k, input) in p.archiveInputs.enumerated() {
            guard case .path(let pattern) = input, Glob.isPattern(pattern) else { continue }
            let glob = Glob(pattern)
            for (path, w) in writer where w != p.index && glob.matches(path) && !graph.depends(p.index, on: w) {
                problems.append(Diagnostic(JobPath.action(jobs[p.index], "from").appending(index: k),
                                           "matches \(path), which job \"\(planned[w].id)\" writes, but does not depend on it; add \"dependsOn\": [\"\(planned[w].id)\"]"))
            }
        }
        return problems
    }
}
