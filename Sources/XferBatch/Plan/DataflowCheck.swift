/// Checks who writes and who reads which file: no two jobs may write one path, and a
/// job reading a path another job writes must depend on that job (else it could run
/// before the file exists, or read it half-written). An extract job owns its folder
/// whole: nothing else may write inside it, and whoever reads inside it depends on it.
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
        let folders = planned.indices.compactMap { i -> (folder: String, index: Int)? in
            guard planned[i].kind == .extract, let out = outputs[i] else { return nil }
            return (out, i)
        }
        if !folders.isEmpty { problems += insideExtractFolders(folders) }
        for i in planned.indices where planned[i].kind != .download {
            let p = planned[i]
            for (path, jsonPath) in reads(p) {
                if let w = writer[path], w != p.index, !graph.depends(p.index, on: w) {
                    problems.append(Diagnostic(jsonPath,
                                               "reads \(path), which job \"\(planned[w].id)\" writes, but does not depend on it; add \"dependsOn\": [\"\(planned[w].id)\"]"))
                }
                if let f = folders.first(where: { $0.index != p.index && PathText.isWithin(path, folder: $0.folder) }),
                   !graph.depends(p.index, on: f.index) {
                    problems.append(Diagnostic(jsonPath, "reads \(path) inside \(f.folder), which extract job \"\(planned[f.index].id)\" writes, but does not depend on it; add \"dependsOn\": [\"\(planned[f.index].id)\"]"))
                }
            }
            if case .archive = p.action {
                problems += globInputs(p, writer: writer, folders: folders)
                problems += folderInputs(p)
            }
        }
        return problems
    }

    /// No job writes inside an extract job's folder (it is replaced as a whole), and no
    /// extract folder lies inside another.
    private func insideExtractFolders(_ folders: [(folder: String, index: Int)]) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (i, output) in outputs.enumerated() {
            guard let out = output else { continue }
            let bare = out.hasSuffix("/") ? String(out.dropLast()) : out
            for f in folders where f.index != i && (PathText.isWithin(bare, folder: f.folder) || bare + "/" == f.folder) {
                problems.append(Diagnostic(JobPath.action(jobs[i], "to"),
                                           "writes \(out) inside \(f.folder), which extract job \"\(planned[f.index].id)\" replaces as a whole; choose a destination outside it"))
            }
        }
        return problems
    }

    /// What a job writes: a download's destination, an archive's file or an extraction's
    /// folder; nil for an upload.
    static func output(of job: PlannedJob) -> String? {
        switch job.action {
        case .download(let d): d.to
        case .archive(let a): a.to
        case .extract(let e): e.to
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
            return p.inputs.enumerated().compactMap { k, input in
                guard case .path(let path) = input, !Glob.isPattern(path) else { return nil }
                _ = a
                return (path, JobPath.action(job, "from").appending(index: k))
            }
        case .download, .extract:
            return []
        }
    }

    /// An archive input that is a folder takes every file under it (`ArchiveInputs.files`),
    /// so a job writing anywhere inside it must run first. Whether a path is a folder is
    /// not known here (nothing is read); a job writing inside it says that it is.
    private func folderInputs(_ p: PlannedJob) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (k, input) in p.inputs.enumerated() {
            guard case .path(let folder) = input, !Glob.isPattern(folder) else { continue }
            for (w, output) in outputs.enumerated() where w != p.index {
                guard let out = output, out != folder, !graph.depends(p.index, on: w) else { continue }
                let bare = out.hasSuffix("/") ? String(out.dropLast()) : out
                guard bare == folder || PathText.isWithin(bare, folder: folder) else { continue }
                problems.append(Diagnostic(JobPath.action(jobs[p.index], "from").appending(index: k),
                                           "takes the files in \(folder), where job \"\(planned[w].id)\" writes \(out), but does not depend on it; add \"dependsOn\": [\"\(planned[w].id)\"]"))
            }
        }
        return problems
    }

    /// An archive glob must only match outputs of jobs the archive depends on.
    private func globInputs(_ p: PlannedJob, writer: [String: Int], folders: [(folder: String, index: Int)]) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (k, input) in p.inputs.enumerated() {
            guard case .path(let pattern) = input, Glob.isPattern(pattern) else { continue }
            let glob = Glob(pattern)
            for (path, w) in writer where w != p.index && glob.matches(path) && !graph.depends(p.index, on: w) {
                problems.append(Diagnostic(JobPath.action(jobs[p.index], "from").appending(index: k),
                                           "matches \(path), which job \"\(planned[w].id)\" writes, but does not depend on it; add \"dependsOn\": [\"\(planned[w].id)\"]"))
            }
            for f in folders where f.index != p.index && !graph.depends(p.index, on: f.index) && glob.canMatchInside(f.folder) {
                problems.append(Diagnostic(JobPath.action(jobs[p.index], "from").appending(index: k),
                                           "can match files inside \(f.folder), which extract job \"\(planned[f.index].id)\" writes, but does not depend on it; add \"dependsOn\": [\"\(planned[f.index].id)\"]"))
            }
        }
        return problems
    }
}
