/// The engine's loop thread as a task executor.
///
/// Why: a batch of small files is mostly bookkeeping between transfers (verify, rename,
/// record, start the next). On the cooperative pool each finished transfer woke a pool
/// thread and each new one woke the loop again: about 2,700 context switches for 2,000
/// files of 16 KiB, and a third more CPU than with everything on this one thread, which
/// needs 70 to 330 (`perf stat`; CPU 1.34x, `N=20 bench/run-cpu`). Tasks that prefer
/// the engine (`withTaskExecutorPreference(engine)`; `Transport.taskExecutor`) run between
/// libcurl calls, never inside a callback; a transfer's continuation, resumed on this
/// thread, needs no wake-up at all.
///
/// Invariant for such tasks: nothing long or blocking. A large file is hashed on a thread
/// of its own (`FileDigest.sha256Async`), archives are built in `BlockingWork`; a job that
/// blocked here would stall every transfer.
extension TransferEngine: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Once the loop has ended (after `shutdown()`), jobs run on the global executor:
        // a task that still prefers the engine must not be stranded.
        if !send(.run(job)) { runElsewhere(job) }
    }

    /// A job the ended loop can no longer run goes to the global executor.
    private func runElsewhere(_ job: UnownedJob) { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }

    /// The engine's thread runs the tasks that prefer it (see above).
    public var taskExecutor: (any TaskExecutor)? { self }

    /// Ends the inbox when the loop ends: later commands are refused (`send` returns
    /// false), and the last ones are settled here so that nothing waits forever.
    func closeInbox() {
        let leftovers = inbox.withLock { inbox in
            inbox.closed = true
            defer { inbox.commands.removeAll() }
            return inbox.commands
        }
        for command in leftovers {
            switch command {
            case .add(let transfer): transfer.complete(.failure(.cancelled()))
            case .run(let job): runElsewhere(job)
            case .cancel, .readerReady, .shutdown: break
            }
        }
    }
}
