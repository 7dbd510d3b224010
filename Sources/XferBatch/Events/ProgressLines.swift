import Synchronization

/// A periodic plain progress line for long unattended runs (`--progress-interval`), with
/// the speed since the line before (a CI log read later shows how the run went):
///
///     [ 30.00s] progress 112/200 jobs finished (2 failed), 3 running, 1 waiting to retry, 1.2 GiB so far, 41 MiB/s
///
/// The failed and waiting counts appear only when not zero.
public final class ProgressLines: EventSink {
    private let counts = Mutex(RunTally())
    /// Bytes moved at the last line, and when (the run's clock).
    private let lastLine = Mutex((bytes: Int64(0), at: Duration.zero))
    private let board: ProgressBoard

    public init(board: ProgressBoard) {
        self.board = board
    }

    public func handle(_ event: RunEvent) {
        counts.withLock { $0.count(event) }
    }

    /// The line for `now` on the run's clock (without timestamp).
    public func line(at now: Duration) -> String {
        let snapshot = board.snapshot()
        let active = snapshot.entries
        let c = counts.withLock { $0 }
        let moved = c.bytesDone + snapshot.bytesMoved
        var rate = TransferRate()
        lastLine.withLock { last in
            rate.record(last.bytes, at: last.at)
            last = (moved, now)
        }
        rate.record(moved, at: now)
        let failed = c.failed > 0 ? " (\(c.failed) failed)" : ""
        let waiting = c.waitingToRetry.isEmpty ? "" : ", \(c.waitingToRetry.count) waiting to retry"
        return "progress \(c.finished)/\(c.total) jobs finished\(failed), \(active.count) running\(waiting), \(ByteSize.format(moved)) so far, "
            + "\(ByteSize.format(Int64(rate.bytesPerSecond)))/s"
    }
}
