import Synchronization

/// A periodic plain progress line for long unattended runs (`--progress-interval`):
///
///     [ 30.00s] progress 112/200 jobs finished, 3 running, 1.2 GiB so far
public final class ProgressLines: EventSink {
    private let counts = Mutex(RunTally())
    private let board: ProgressBoard

    public init(board: ProgressBoard) {
        self.board = board
    }

    public func handle(_ event: RunEvent) {
        counts.withLock { $0.count(event) }
    }

    /// The line for now (without timestamp).
    public func line() -> String {
        let active = board.snapshot()
        let inFlight = active.reduce(Int64(0)) { $0 + $1.bytesDone }
        let c = counts.withLock { $0 }
        return "progress \(c.finished)/\(c.total) jobs finished, \(active.count) running, \(ByteSize.format(c.bytesDone + inFlight)) so far"
    }
}
