/// The dependency graph of a batch: jobs by index, edges from a job to what it depends on.
///
/// Built once per plan, in O(jobs + edges). Provides the topological waves (wave 0 has
/// no dependencies; a job's wave is one more than its latest dependency's), the longest
/// remaining chain from each job (the executor starts long chains first) and the critical
/// path (the longest chain in the whole graph, counted in jobs).
public struct JobGraph: Sendable {
    /// A dependency cycle, as job indices `[a, b, c, a]` where each depends on the next.
    public struct Cycle: Error, Sendable, Equatable {
        public var jobs: [Int]
    }

    /// For each job, the indices it depends on (sorted, unique).
    public let dependencies: [[Int]]
    /// For each job, the indices that depend on it (sorted).
    public let dependents: [[Int]]
    /// For each job, its wave number (0-based).
    public let wave: [Int]
    /// Job indices per wave, each in manifest order.
    public let waves: [[Int]]
    /// For each job, the number of jobs on the longest chain starting at it (itself included).
    public let remainingChain: [Int]
    /// The longest chain, first job first.
    public let criticalPath: [Int]

    public var count: Int { dependencies.count }

    public init(dependencies raw: [[Int]]) throws(Cycle) {
        let n = raw.count
        let deps = raw.map(Self.sortedUnique)
        var dependents = [[Int]](repeating: [], count: n)
        var pending = [Int](repeating: 0, count: n)
        for (job, ds) in deps.enumerated() {
            pending[job] = ds.count
            for d in ds { dependents[d].append(job) }
        }
        // Kahn's algorithm; `order` is a topological order.
        var order: [Int] = []
        order.reserveCapacity(n)
        for j in 0..<n where pending[j] == 0 { order.append(j) }
        var head = 0
        var wave = [Int](repeating: 0, count: n)
        while head < order.count {
            let j = order[head]
            head += 1
            for d in dependents[j] {
                wave[d] = max(wave[d], wave[j] + 1)
                pending[d] -= 1
                if pending[d] == 0 { order.append(d) }
            }
        }
        if order.count < n { throw Self.findCycle(deps: deps, pending: pending) }

        var waves = [[Int]](repeating: [], count: (wave.max() ?? -1) + 1)
        for j in 0..<n { waves[wave[j]].append(j) }

        var remaining = [Int](repeating: 1, count: n)
        for j in order.reversed() {
            for d in dependents[j] { remaining[j] = max(remaining[j], remaining[d] + 1) }
        }
        var path: [Int] = []
        if var current = (0..<n).filter({ deps[$0].isEmpty }).max(by: { (remaining[$0], -$0) < (remaining[$1], -$1) }) {
            path.append(current)
            while let next = dependents[current].max(by: { (remaining[$0], -$0) < (remaining[$1], -$1) }),
                  remaining[next] == remaining[current] - 1 {
                path.append(next)
                current = next
            }
        }
        self.dependencies = deps
        self.dependents = dependents
        self.wave = wave
        self.waves = waves
        self.remainingChain = remaining
        self.criticalPath = path
    }

    /// `list` sorted without repeats (dependency lists are short: no Set needed).
    private static func sortedUnique(_ list: [Int]) -> [Int] {
        if list.count < 2 { return list }
        var sorted = list.sorted()
        var write = 1
        for read in 1..<sorted.count where sorted[read] != sorted[write - 1] {
            sorted[write] = sorted[read]
            write += 1
        }
        sorted.removeLast(sorted.count - write)
        return sorted
    }

    /// Every job left with unmet dependencies after Kahn's algorithm lies on or behind a
    /// cycle; walking unmet dependency edges from any of them must revisit a job.
    private static func findCycle(deps: [[Int]], pending: [Int]) -> Cycle {
        guard let start = pending.firstIndex(where: { $0 > 0 }) else { return Cycle(jobs: []) }
        var seenAt: [Int: Int] = [:]
        var walk: [Int] = []
        var current = start
        while seenAt[current] == nil {
            seenAt[current] = walk.count
            walk.append(current)
            // Any dependency still pending keeps us inside the unresolved part.
            current = deps[current].first { pending[$0] > 0 } ?? deps[current][0]
        }
        let cycle = Array(walk[seenAt[current]!...]) + [current]
        // Start the report at the cycle's first job in manifest order, for stable messages.
        let body = cycle.dropLast()
        let first = body.enumerated().min { $0.element < $1.element }!.offset
        let rotated = Array(body[first...]) + Array(body[..<first])
        return Cycle(jobs: rotated + [rotated[0]])
    }

    /// True when `ancestor` is reachable from `job` by following dependencies.
    public func depends(_ job: Int, on ancestor: Int) -> Bool {
        if job == ancestor { return false }
        var stack = dependencies[job]
        var seen = Set<Int>()
        while let j = stack.popLast() {
            if j == ancestor { return true }
            if seen.insert(j).inserted { stack.append(contentsOf: dependencies[j]) }
        }
        return false
    }
}
