/// Turns a `Manifest` into a `Plan`: a pure function of the manifest, the environment and
/// the manifest's folder. No network, no writes, no reads beyond its arguments.
///
/// Checks made here (each names the JSON path it concerns): duplicate ids, unknown
/// dependencies, cycles, destinations escaping `outputDir`, two jobs writing one file, and
/// jobs reading a file another job writes without depending on it.
public struct Planner: Sendable {
    public var environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// Plans a loaded manifest, positioning any problem in its source.
    public func plan(_ loaded: LoadedManifest) throws(ManifestError) -> Plan {
        do {
            return try plan(loaded.manifest, manifestPath: loaded.source.path, directory: loaded.directory)
        } catch {
            throw ManifestError(source: loaded.source, root: loaded.root, diagnostics: error.diagnostics)
        }
    }

    /// Plans `manifest`, whose relative paths resolve against `directory` (absolute).
    public func plan(_ manifest: Manifest, manifestPath: String, directory: String) throws(PlanningError) -> Plan {
        var problems: [Diagnostic] = []
        let outputDirectory = PathText.resolve(manifest.outputDir, against: directory)
        let jobs = manifest.jobs

        // Ids: unique; dependsOn: known.
        var indexByID: [String: Int] = [:]
        indexByID.reserveCapacity(jobs.count)
        for (i, job) in jobs.enumerated() {
            if let first = indexByID[job.id] {
                problems.append(Diagnostic(Self.path(job, "id"), "duplicate job id \"\(job.id)\" (first used by jobs[\(first)])"))
            } else {
                indexByID[job.id] = i
            }
        }
        var edges = [[Int]](repeating: [], count: jobs.count)
        for (i, job) in jobs.enumerated() {
            for (k, dep) in job.dependsOn.enumerated() {
                if let d = indexByID[dep] {
                    edges[i].append(d)
                } else {
                    let hint = Suggestion.phrase(for: dep, in: indexByID.keys)
                    problems.append(Diagnostic(JobPath.of(job).appending("dependsOn").appending(index: k),
                                               "no job has the id \"\(dep)\"\(hint)"))
                }
            }
        }

        // Resolve actions and settings.
        let home = environment["HOME"]
        var planned: [PlannedJob] = []
        planned.reserveCapacity(jobs.count)
        for job in jobs {
            var resolver = JobResolver(job: job, directory: directory, outputDirectory: outputDirectory,
                                       defaults: manifest.defaults, environment: environment, home: home, indexByID: indexByID)
            let p = resolver.resolve()
            problems += resolver.problems
            for id in resolver.implicitDependencies { if let d = indexByID[id] { edges[job.index].append(d) } }
            planned.append(p)
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

        for i in planned.indices {
            planned[i].dependsOn = graph.dependencies[i].map { jobs[$0].id }
            problems += linkArchiveInputs(&planned[i], all: planned, indexByID: indexByID, job: jobs[i])
        }
        problems += DataflowCheck(jobs: jobs, planned: planned, graph: graph).problems()
        if !problems.isEmpty { throw PlanningError(diagnostics: problems) }
        return Plan(name: manifest.name, manifestPath: manifestPath, directory: directory,
                    outputDirectory: outputDirectory, limits: manifest.limits, jobs: planned, graph: graph)
    }

    static func path(_ job: Job, _ key: String) -> JSONPath { JobPath.of(job).appending(key) }

    /// Fills each `.job` archive input with that job's output path; uploads produce none.
    private func linkArchiveInputs(_ p: inout PlannedJob, all: [PlannedJob], indexByID: [String: Int], job: Job) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (k, input) in p.archiveInputs.enumerated() {
            guard case .job(let id, _) = input, let source = indexByID[id] else { continue }
            if let out = DataflowCheck.output(of: all[source]) {
                p.archiveInputs[k] = .job(id: id, path: out)
            } else {
                problems.append(Diagnostic(JobPath.action(job, "from").appending(index: k),
                                           "job \"\(id)\" is an upload and produces no file to archive"))
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
