/// Keeps jobs off the files a run itself depends on: the manifest, the state folders
/// beside it (`.xferbatch/`), and the files of a state folder given with `--state`.
///
/// A download to the manifest's own path replaced the manifest with the download (seen:
/// the run said "succeeded", the next one could not read its manifest), and one into
/// `.xferbatch/` could overwrite the checkpoint database a run is writing. An extract job
/// replaces its folder as a whole, so it may not hold either. Decided on the text of the
/// paths, like every planner check; a file the server names at run time is checked when
/// it is known (`PathClaims`).
struct OwnFilesCheck {
    /// The manifest, absolute (nil: read from standard input or a pipe).
    let manifest: String?
    /// `.xferbatch/` beside the manifest: every manifest's default state folder.
    let stateRoot: String
    /// The state folder given with `--state`, absolute, if any: outputs may sit beside its
    /// files (`--state .`), not replace them.
    let stateFolder: String?

    /// - Parameter manifest: the manifest's path as given (nil: read from standard input or a pipe).
    init(manifest: String?, directory: String, stateFolder: String? = nil) {
        self.stateFolder = stateFolder.map(PathText.absolute)
        self.manifest = manifest.map { directory == "/" ? "/" + PathText.lastComponent($0) : directory + "/" + PathText.lastComponent($0) }
        stateRoot = PathText.resolve(Plan.stateFolderName, against: directory)
    }

    /// What is wrong with writing `output` (a job's file, or its folder ending in `/`), if anything.
    func problem(writing output: String, kind: JobKind) -> String? {
        // Bytes, not `hasSuffix`: this runs for every job (bench/plan-scale).
        let folder = output.utf8.last == UInt8(ascii: "/")
        let bare = folder && output.utf8.count > 1 ? String(output.dropLast()) : output
        if !folder, bare == manifest { return "writes \(bare), which is the manifest itself; choose another destination" }
        if PathText.isWithin(bare, folder: stateRoot) {
            return "writes inside \(stateRoot), where runs keep their checkpoints and locks; choose a destination outside it"
        }
        // A folder given with --state may hold other files (`--state .`), but not in place of its own.
        if let stateFolder, !folder, PathText.parent(bare) == stateFolder, StateFolder.keeps(PathText.lastComponent(bare)) {
            return "writes \(bare), a file the state folder \(stateFolder) keeps; choose another destination"
        }
        guard kind == .extract else { return nil }
        for (path, what) in [(manifest, "the manifest"), (stateRoot, "the state folders"), (stateFolder, "the state folder")]
        where path.map({ PathText.isWithin($0, folder: bare) }) ?? false {
            return "replaces \(output) as a whole, and it holds \(what) (\(path ?? "")); choose a folder that does not"
        }
        return nil
    }

    func problems(jobs: [Job], planned: [PlannedJob], outputs: [String?]) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (i, output) in outputs.enumerated() {
            guard let output, let problem = problem(writing: output, kind: planned[i].kind) else { continue }
            problems.append(Diagnostic(JobPath.action(jobs[i], "to"), problem))
        }
        return problems
    }
}
