/// The process exit codes of `xferbatch`, documented in the README and `--help`.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Every job succeeded or was up to date.
    case success = 0
    /// At least one job failed or was skipped, or a report or the events could not be
    /// written whole (`clean`: the state folder was not removed).
    case jobsFailed = 1
    /// The manifest or the command line is invalid.
    case invalidInput = 2
    /// Another run holds the state folder's lock.
    case locked = 3
    /// The state folder cannot be used: it cannot be created, locked, read or written
    /// (permissions, a full disk), or a newer xferbatch wrote its store. Apart from 2, so
    /// that a cron job's alert tells the machine's trouble from a mistake in the manifest.
    case stateUnusable = 4
    /// Stopped by SIGHUP (the terminal or SSH session it ran in went away).
    case hungUp = 129
    /// Interrupted by SIGINT.
    case interrupted = 130
    /// Terminated by SIGTERM.
    case terminated = 143

    /// One line per code, for `--help` and the README.
    public static let helpText = """
        Exit codes:
          0    every job succeeded or was up to date
          1    a job failed or was skipped, or a report or the events could not
               be written whole (clean: the state folder was kept)
          2    invalid manifest or usage
          3    another run holds the lock on the state folder
          4    the state folder cannot be used (created, locked, read or
               written: permissions, a full disk; or a newer xferbatch wrote it)
          129  stopped by SIGHUP (its terminal closed; not under nohup)
          130  interrupted (SIGINT)
          143  terminated (SIGTERM)
        """
}
