extension Executor {
    /// How many lanes (transfer engines, a thread each) a run of `plan` uses on a machine
    /// with `processors` processors: one per processor, at most one per slot
    /// (`limits.concurrency`) and at most `maxLanes`, or one in the cases below.
    ///
    /// Why more than one: a run of many small files is bound by the engine's thread, which
    /// does libcurl's work and, between transfers, each job's own (hash, record, rename,
    /// start the next). On two processors, two lanes ran 2,000 files of 16 KiB from nginx
    /// 1.43 times as fast as one, for 6% more CPU (`bench/run-cpu`, 20 rounds; see
    /// bench/README.md); three and four lanes were slower than two there: more threads than
    /// processors only take turns.
    ///
    /// One lane when:
    /// - `limits.bandwidth` is set: such a run waits on its cap, not on a processor, and one
    ///   loop releasing the transfers paused for it (`SharedBandwidth`) lets them take turns.
    /// - the run has FTP, FTPS or SFTP transfers: each lane keeps its own idle connections,
    ///   which a server limiting connections per address (vsftpd's `max_per_ip`) counts
    ///   too, so a second lane opening its own would be refused; SSH logins are costly too.
    public static func laneCount(for plan: Plan, processors: Int) -> Int {
        if plan.limits.bandwidth != nil { return 1 }
        if plan.jobs.contains(where: { $0.url?.isFTPOrSFTP == true }) { return 1 }
        return max(1, min(processors, plan.limits.concurrency, maxLanes))
    }

    /// The most lanes a run uses, whatever the machine: not measured beyond two processors,
    /// and each lane holds its own connections to every host.
    public static let maxLanes = 4
}
