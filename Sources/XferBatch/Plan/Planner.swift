/// Turns a `Manifest` into a `Plan`: a pure function of the manifest, the environment and
/// the manifest's folder (and, where `HOME` is unset, the user's home folder in the
/// password database). No network, no writes, no reads beyond its arguments.
///
/// Checks made here (each names the JSON path it concerns): duplicate ids, unknown
/// dependencies, cycles, destinations escaping `outputDir`, two jobs writing one file,
/// jobs reading a file another job writes without depending on it, and jobs writing the
/// manifest or the state folders (`OwnFilesCheck`).
public struct Planner: Sendable {
    public var environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// Plans a loaded manifest, positioning any problem in its source.
    /// - Parameter stateFolder: a state folder given instead of the default (`--state`),
    ///   which no job may write into either.
    public func plan(_ loaded: LoadedManifest, stateFolder: String? = nil) throws(ManifestError) -> Plan {
        do {
            return try plan(loaded.manifest, manifestPath: loaded.source.path, directory: loaded.directory, stateFolder: stateFolder,
                            manifestIsStream: loaded.isStream)
        } catch {
            let root = try? JSONParser.parse(loaded.source.bytes)
            throw ManifestError(source: loaded.source, root: root, diagnostics: error.diagnostics)
        }
    }

    /// Plans `manifest`, whose relative paths resolve against `directory` (absolute).
    /// `manifestIsStream`: read from standard input or a pipe (see `ManifestLoader.load`).
    public func plan(_ manifest: Manifest, manifestPath: String, directory: String, stateFolder: String? = nil,
                     manifestIsStream: Bool = false) throws(PlanningError) -> Plan {
        var problems: [Diagnostic] = []
        let outputDirectory = PathText.resolve(manifest.outputDir, against: directory, home: PathText.home(in: environment))
        let jobs = manifest.jobs

        // Ids: unique; dependsOn: known. (Indexing, not `for job in jobs`: a loop variable
        // would copy every job.)
        var indexByID: [String: Int] = [:]
        indexByID.reserveCapacity(jobs.count)
        for i in jobs.indices {
            if let first = indexByID.updateValue(i, forKey: jobs[i].id) {
                indexByID[jobs[i].id] = first
                problems.append(Diagnostic(Self.path(jobs[i], "id"), "duplicate job id \"\(jobs[i].id)\" (first used by jobs[\(first)])"))
            }
        }
        let context = JobResolver.Context(directory: directory, outputDirectory: outputDirectory, defaults: manifest.defaults,
                                          environment: environment, indexByID: indexByID)
        var edges = [[Int]](repeating: [], count: jobs.count)
        for i in jobs.indices where !jobs[i].dependsOn.isEmpty {
            edges[i].reserveCapacity(jobs[i].dependsOn.count)
            for (k, dep) in jobs[i].dependsOn.enumerated() {
                if let d = indexByID[dep] {
                    edges[i].append(d)
                } else {
                    let hint = context.idHints.phrase(for: dep)
                    problems.append(Diagnostic(JobPath.of(jobs[i]).appending("dependsOn").appending(index: k),
                                               "no job has the id \"\(dep)\"\(hint)"))
                }
            }
        }

        // Resolve actions and settings.
        var planned: [PlannedJob] = []
        planned.reserveCapacity(jobs.count)
        var sharedTransfer: SharedBox<EffectiveTransfer>? = nil
        for i in jobs.indices {
            var resolver = JobResolver(job: jobs[i], context: context)
            resolver.sharedTransfer = sharedTransfer
            planned.append(resolver.resolve())
            sharedTransfer = resolver.sharedTransfer
            if !resolver.problems.isEmpty { problems += resolver.problems }
            for id in resolver.implicitDependencies { if let d = indexByID[id] { edges[i].append(d) } }
        }

        let graph: JobGraph
        do {
            graph = try JobGraph(dependencies: edges)
        } catch {
            let names = error.jobs.map { jobs[$0].id }
            let first = jobs[error.jobs[0]]
            problems.append(Diagnostic(JobPath.of(first).appending("dependsOn"),
                                       "dependency cycle: \(names.joined(separator: " -> ")) (each depends on the next)"))
            throw PlanningError(diagnostics: problems)
        }

        let outputs = planned.map(DataflowCheck.output(of:))
        let kinds = planned.map(\.kind)
        for i in planned.indices {
            // Keep the manifest's own array when it already lists exactly the graph's
            // dependencies in index order (the common case): no new array per job.
            let deps = graph.dependencies[i]
            if !(deps.count == jobs[i].dependsOn.count && zip(deps, jobs[i].dependsOn).allSatisfy { jobs[$0].id == $1 }) {
                planned[i].dependsOn = deps.map { jobs[$0].id }
            }
            if planned[i].kind == .archive || planned[i].kind == .extract {
                problems += linkInputs(&planned[i], outputs: outputs, kinds: kinds, indexByID: indexByID, job: jobs[i])
            }
        }
        problems += DataflowCheck(jobs: jobs, planned: planned, outputs: outputs, graph: graph).problems()
        let isStream = manifestIsStream || manifestPath == ManifestLoader.standardInputName
        problems += OwnFilesCheck(manifest: isStream ? nil : manifestPath, directory: directory, stateFolder: stateFolder)
            .problems(jobs: jobs, planned: planned, outputs: outputs)
        if !problems.isEmpty { throw PlanningError(diagnostics: problems) }
        var plan = Plan(name: manifest.name, manifestPath: manifestPath, directory: directory,
                        outputDirectory: outputDirectory, limits: manifest.limits, jobs: planned, graph: graph)
        plan.givenStateFolder = stateFolder.map(PathText.absolute)
        plan.manifestIsStream = isStream
        return plan
    }

    static func path(_ job: Job, _ key: String) -> JSONPath { JobPath.of(job).appending(key) }

    /// Fills each `.job` input of an archive or extract job with that job's output file;
    /// uploads produce none, and an extraction produces a folder, not a file.
    private func linkInputs(_ p: inout PlannedJob, outputs: [String?], kinds: [JobKind], indexByID: [String: Int], job: Job) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (k, input) in p.inputs.enumerated() {
            guard case .job(let id, _) = input, let source = indexByID[id] else { continue }
            let at = p.kind == .extract ? JobPath.action(job, "from") : JobPath.action(job, "from").appending(index: k)
            let verb = p.kind == .extract ? "extract" : "archive"
            if let out = outputs[source], kinds[source] != .extract {
                p.inputs[k] = .job(id: id, path: out)
            } else {
                let what = kinds[source] == .extract ? "an extraction and produces a folder" : "an upload and produces no file"
                problems.append(Diagnostic(at, "job \"\(id)\" is \(what) to \(verb)"))
            }
        }
        return problems
    }
}

/// JSON paths inside one job.
enum JobPath {
    static func of(_ job: Job) -> JSONPath { JSONPath([.key("jobs"), .index(job.index)]) }

    /// `jobs[i].download.to` and the like.
    static func action(_ job: Job, _ key: String) -> JSONPath {
        of(job).appending(job.kind.rawValue).appending(key)
    }
}
