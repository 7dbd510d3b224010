/// The jobs ready to start, and which of them may start now under the per-host limit.
///
/// Start order is fixed by the plan: priority (higher first), then the longest remaining
/// chain of dependents, then manifest order; each job's place in it is its rank. Ready
/// jobs wait in one heap per host, and the hosts that have one waiting sit in a heap by
/// their best job's rank, so the next job to start is found in O(log n).
///
/// Why not one sorted list scanned past the jobs of full hosts: with every job on one
/// host (a mirror of one server, or `data:` URLs, which count as host "local") each start
/// walked the whole list once its host was full, and a run of 100,000 jobs spent 130 s
/// hashing host names, up to date or not.
struct ReadyQueue {
    /// `order[rank]` is a job; `rank[job]` its place in the start order.
    private let order: [Int]
    private let rank: [Int]
    /// Each job's host, numbered; jobs without a host (archives, extractions) share one
    /// with no limit.
    private let host: [Int]
    private let hostless: Int
    /// Per host, how many of its jobs may run at once: `limits.perHost`, or fewer once its
    /// server refused a connection beyond that many (see `lowerCap`).
    private var caps: [Int]
    private var running: [Int]
    /// Hosts whose server asked for a pause (see `RunScheduler.holdHost`): none of their
    /// jobs starts until `release`.
    private var held: [Bool]
    /// Per host, the ranks of its ready jobs.
    private var waiting: [MinHeap]
    /// `rank * hostCount + host` of each host's best waiting job, pushed whenever it may
    /// have changed; an entry no longer true (the job started, the host is full) is dropped
    /// when met, and the host pushed again when it has room.
    private var candidates = MinHeap()
    private(set) var count = 0

    init(plan: Plan) {
        let jobs = plan.jobs
        order = jobs.indices.sorted { a, b in
            let pa = jobs[a].priority, pb = jobs[b].priority
            if pa != pb { return pa > pb }
            let ca = plan.graph.remainingChain[a], cb = plan.graph.remainingChain[b]
            if ca != cb { return ca > cb }
            return a < b
        }
        var rank = [Int](repeating: 0, count: jobs.count)
        for (r, j) in order.enumerated() { rank[j] = r }
        self.rank = rank
        // Hosts numbered in order of appearance; the hostless share the number after them.
        // One lookup a job (a second cost about 400 instructions).
        var numbered: [TransferURL.Endpoint: Int] = [:]
        var host = [Int](repeating: -1, count: jobs.count)
        for (j, job) in jobs.enumerated() {
            guard let endpoint = job.url?.endpoint else { continue }
            let next = numbered.count
            host[j] = numbered[endpoint, default: next]
            if host[j] == next { numbered[endpoint] = next }
        }
        hostless = numbered.count
        for j in host.indices where host[j] < 0 { host[j] = hostless }
        self.host = host
        caps = [Int](repeating: plan.limits.perHost, count: hostless + 1)
        running = [Int](repeating: 0, count: hostless + 1)
        held = [Bool](repeating: false, count: hostless + 1)
        waiting = [MinHeap](repeating: MinHeap(), count: hostless + 1)
    }

    private var hostCount: Int { hostless + 1 }

    private func isFull(_ h: Int) -> Bool { h != hostless && (held[h] || running[h] >= caps[h]) }

    /// Job `j` is ready.
    mutating func add(_ j: Int) {
        let h = host[j], r = rank[j]
        waiting[h].push(r)
        count += 1
        if waiting[h].min == r { candidates.push(r * hostCount + h) }
    }

    /// The best ready job whose host has room, taken out of the queue; nil if none.
    mutating func next() -> Int? {
        while let entry = candidates.min {
            let r = entry / hostCount, h = entry % hostCount
            candidates.popMin()
            guard waiting[h].min == r, !isFull(h) else { continue }  // stale, or its host is full
            waiting[h].popMin()
            count -= 1
            offerBest(of: h)
            return order[r]
        }
        return nil
    }

    /// Job `j` started: it counts against its host's limit until `ended(j)`.
    mutating func started(_ j: Int) { running[host[j]] += 1 }

    /// Job `j`'s attempt ended: its host has room for a waiting job again.
    mutating func ended(_ j: Int) {
        let h = host[j]
        running[h] -= 1
        offerBest(of: h)
    }

    /// Job `j`'s host, numbered; nil for a job without one (an archive, an extraction).
    func host(of j: Int) -> Int? {
        host[j] == hostless ? nil : host[j]
    }

    /// Lets host `h` run no more jobs at once than it runs now (at least one): its server
    /// refused one more connection. The new cap, or nil when that is no lower.
    mutating func lowerCap(_ h: Int) -> Int? {
        let cap = max(1, running[h])
        guard cap < caps[h] else { return nil }
        caps[h] = cap
        return cap
    }

    /// Holds back every job of host `h` until `release`.
    mutating func hold(_ h: Int) {
        held[h] = true
    }

    /// Host `h`'s jobs may start again.
    mutating func release(_ h: Int) {
        held[h] = false
        offerBest(of: h)
    }

    /// Puts host `h`'s best waiting job among the candidates (again: an entry no longer
    /// true is dropped when met).
    private mutating func offerBest(of h: Int) {
        if let best = waiting[h].min { candidates.push(best * hostCount + h) }
    }

    /// Takes every waiting job of host `h` out of the queue, best first (its entries among
    /// the candidates go stale and are dropped when met).
    mutating func removeAll(ofHost h: Int) -> [Int] {
        var jobs: [Int] = []
        while let r = waiting[h].min {
            waiting[h].popMin()
            count -= 1
            jobs.append(order[r])
        }
        return jobs
    }

    mutating func removeAll() {
        for h in waiting.indices { waiting[h].removeAll() }
        candidates.removeAll()
        count = 0
    }
}
