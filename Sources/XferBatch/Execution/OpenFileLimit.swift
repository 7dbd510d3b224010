import Glibc

/// How many files a run may have open, and how many transfers at once that allows.
///
/// Every transfer holds a socket and its partial file, a large one also a reader hashing
/// it, and a host name being resolved a socket pair. With `limits.concurrency` in the
/// hundreds and the usual soft limit of 1,024 (`ulimit -n`), transfers would fail with
/// EMFILE, each a failed job. So a run first raises its soft limit to the hard one (as Go's
/// runtime does; libcurl waits with `poll`, so descriptors past 1,024 are safe), then runs
/// no more transfers at once than the limit leaves room for, and says so.
public enum OpenFileLimit {
    /// Files one transfer may hold open at once (socket, partial, hashing reader, resolver pair).
    public static let perTransfer = 5
    /// Files a run holds whatever its concurrency: libcurl's idle connections
    /// (`TransferEngine.defaultIdleConnections`, 64), standard streams, the state database
    /// with its WAL and shared memory, the journal, the lock, the engine's wake-up pipe.
    public static let reserved = 96

    /// Raises the soft limit on open files to the hard limit; returns the soft limit in
    /// force afterwards (unchanged if raising failed).
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY is rlim_t.max: Int.max
    }

    /// The open files a run would have after `raise()` (the hard limit), changing nothing:
    /// for `plan`.
    public static func available() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        return Int(clamping: limit.rlim_max)
    }

    /// Lowers `limits.concurrency` (and `perHost` with it) to what `openFiles` leaves room
    /// for; returns the warning
    /// to show when it did, naming both numbers and `ulimit -n`.
    public static func fit(_ limits: inout Limits, openFiles: Int) -> String? {
        let room = concurrency(openFiles: openFiles)
        guard limits.concurrency > room else { return nil }
        defer { (limits.concurrency, limits.perHost) = (room, min(limits.perHost, room)) }
        return "limits.concurrency \(limits.concurrency) needs about \(needed(concurrency: limits.concurrency)) open files, "
            + "and this process may open \(openFiles) (ulimit -n): running \(room) transfers at once"
    }

    /// The most transfers at once `openFiles` leaves room for (at least one).
    public static func concurrency(openFiles: Int) -> Int {
        max(1, (openFiles - reserved) / perTransfer)
    }

    /// Open files `concurrency` transfers at once need.
    public static func needed(concurrency: Int) -> Int { reserved + concurrency * perTransfer }
}
