extension Plan {
    /// Jobs named on the command line (`xferbatch run m.json deploy`): what was asked for,
    /// out of how many.
    public struct Selection: Sendable, Equatable {
        /// The ids as given, in the order given.
        public var named: [String]
        /// Jobs in the whole manifest.
        public var manifestJobs: Int

        /// Writes the `"selection"` member of a plan or a report: null for the whole manifest.
        static func write(_ selection: Selection?, to w: inout JSONWriter) {
            w.key("selection")
            guard let selection else { return w.null() }
            w.object { w in
                w.member("named", strings: selection.named)
                w.member("manifestJobs", selection.manifestJobs)
            }
        }
    }

    /// Why a selection cannot be made: ids the manifest does not have.
    public struct SelectionError: Error, CustomStringConvertible {
        public var lines: [String]
        public var description: String { lines.joined(separator: "\n") }
    }

    /// The plan reduced to the jobs named and every job they depend on, directly or not,
    /// in manifest order, as `make deploy` builds deploy and what it needs.
    ///
    /// Why a reduced plan rather than a filter at run time: every later stage (limits,
    /// waves, the report, the summary's counts) then speaks of exactly the jobs that run,
    /// and the others are not touched at all: their recorded state stays as it is. The
    /// whole manifest is still planned and checked first.
    public func selecting(_ ids: [String]) throws(SelectionError) -> Plan {
        var indexByID: [String: Int] = [:]
        for job in jobs { indexByID[job.id] = job.index }
        let unknown = ids.filter { indexByID[$0] == nil }
        guard unknown.isEmpty else {
            throw SelectionError(lines: unknown.map { "no job \"\($0)\" in \(manifestPath)" + Suggestion.phrase(for: $0, in: jobs.map(\.id)) })
        }
        var chosen = [Bool](repeating: false, count: jobs.count)
        var stack = ids.compactMap { indexByID[$0] }
        while let j = stack.popLast() {
            if chosen[j] { continue }
            chosen[j] = true
            stack += graph.dependencies[j]
        }
        let kept = jobs.indices.filter { chosen[$0] }
        var newIndex = [Int](repeating: -1, count: jobs.count)
        for (n, old) in kept.enumerated() { newIndex[old] = n }
        let reduced = kept.enumerated().map { n, old -> PlannedJob in
            var job = jobs[old]
            job.index = n
            return job
        }
        // Dependencies of a chosen job are chosen too, and part of an acyclic graph has no
        // cycle: the error cannot happen, and is reported rather than trapped should it.
        let graph: JobGraph
        do {
            graph = try JobGraph(dependencies: kept.map { old in self.graph.dependencies[old].map { newIndex[$0] } })
        } catch {
            throw SelectionError(lines: ["the selected jobs form a cycle (\(error.jobs.map { reduced[$0].id }.joined(separator: " -> ")))"])
        }
        var plan = Plan(name: name, manifestPath: manifestPath, directory: directory, outputDirectory: outputDirectory,
                        limits: limits, jobs: reduced, graph: graph)
        plan.manifestIsStream = manifestIsStream
        plan.givenStateFolder = givenStateFolder
        var seen = Set<String>()
        plan.selection = Selection(named: ids.filter { seen.insert($0).inserted }, manifestJobs: jobs.count)
        return plan
    }
}
