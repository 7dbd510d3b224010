import Synchronization

/// The live display for a terminal: event lines scroll above a block that is redrawn
/// (at most ten times a second, by `redraw()`, from polled counters) with one line per
/// active transfer and an overall line. Speeds and times left are over the last few
/// seconds (`TransferRate`).
///
///     dataset  [##########----------]  2.0 MiB/4.0 MiB  12.5 MiB/s  ETA 1s
///     3/6 jobs done, 0 failed · 2.1 MiB · 12.4 MiB/s
///
/// Honours the terminal width, read again at each redraw: a block drawn for a wider
/// terminal than the one left after a resize wraps, and the next redraw's cursor-up no
/// longer reaches its top, leaving a trail of stale lines. Colour (bold overall line) only
/// without `NO_COLOR`.
/// `finish()` erases the block, so only the event lines and the summary remain.
public final class TerminalDisplay: EventSink {
    private struct State {
        var linesDrawn = 0
        var tally = RunTally()
        /// The speed of each transfer shown, by job id (only those still running are kept).
        var rates: [String: TransferRate] = [:]
        var overallRate = TransferRate()
    }

    private let state = Mutex(State())
    private let board: ProgressBoard
    private let clock: any ExecutionClock
    private let terminalWidth: @Sendable () -> Int
    private let color: Bool
    private let write: @Sendable (String) -> Void
    private let plainLines: PlainTextEventSink

    /// `width`: the terminal's columns now (asked at each redraw).
    public init(board: ProgressBoard, clock: any ExecutionClock, width: @escaping @Sendable () -> Int, color: Bool,
                write: @escaping @Sendable (String) -> Void) {
        self.board = board
        self.clock = clock
        self.terminalWidth = width
        self.color = color
        self.write = write
        self.plainLines = PlainTextEventSink(clock: clock, write: write)
    }

    public func handle(_ event: RunEvent) {
        state.withLock { s in
            s.tally.count(event)
            if case .jobStarted = event { return }  // the block shows running jobs
            write(erase(s.linesDrawn))
            s.linesDrawn = 0
            plainLines.handle(event)
        }
    }

    /// Redraws the block; call periodically (the command does, ten times a second).
    public func redraw() {
        let snapshot = board.snapshot()
        let active = snapshot.entries
        let now = clock.now()
        let width = max(Self.narrowest, terminalWidth())
        state.withLock { s in
            // Before the run has started there is nothing to show but "0/0 jobs done".
            guard s.tally.total > 0 else { return }
            var lines: [String] = []
            let room = 8
            let shown = active.prefix(room)
            if s.rates.count > shown.count { s.rates = s.rates.filter { id, _ in shown.contains { $0.id == id } } }
            // The names' column: as wide as the longest id shown, within a third of the line.
            let longest = shown.map { DisplayWidth.of($0.id) }.max() ?? 0
            let nameColumns = min(max(Self.nameColumns, longest), max(Self.nameColumns, width / 3))
            let pieces = shown.map { parts(of: $0, now: now, state: &s) }
            // One bar width for all, so that the bars line up: what the longest tail leaves.
            let longestTail = pieces.map { DisplayWidth.of($0.tail) }.max() ?? 0
            let barWidth = max(0, min(30, width - nameColumns - longestTail - 4))
            for (entry, part) in zip(shown, pieces) {
                lines.append(line(name: entry.id, part, nameColumns: nameColumns, barWidth: barWidth, width: width))
            }
            if active.count > room { lines.append("… and \(active.count - room) more") }
            let moved = s.tally.bytesDone + snapshot.bytesMoved
            s.overallRate.record(moved, at: now)
            let waiting = s.tally.waitingToRetry.isEmpty ? "" : ", \(s.tally.waitingToRetry.count) waiting to retry"
            var overall = "\(s.tally.finished)/\(s.tally.total) jobs done, \(s.tally.failed) failed\(waiting) · \(ByteSize.format(moved)) · "
                + "\(ByteSize.format(Int64(s.overallRate.bytesPerSecond)))/s"
            overall = String(overall.prefix(width - 1))
            lines.append(color ? "\u{1B}[1m\(overall)\u{1B}[0m" : overall)
            var text = erase(s.linesDrawn)
            for l in lines { text += l + "\n" }
            s.linesDrawn = lines.count
            write(text)
        }
    }

    /// Erases the block (before the summary is printed).
    public func finish() {
        state.withLock { s in
            write(erase(s.linesDrawn))
            s.linesDrawn = 0
        }
    }

    /// Columns drawn for at the least: a narrower terminal wraps the lines.
    static let narrowest = 20
    /// The names' column at the least; wider for longer ids on a wider terminal.
    static let nameColumns = 16

    /// A transfer's fraction done (nil: size unknown) and the text after its bar: sizes,
    /// speed, time left.
    private func parts(of entry: ProgressBoard.Entry, now: Duration, state s: inout State) -> (fraction: Double?, tail: String) {
        s.rates[entry.id, default: TransferRate()].record(entry.bytesDone, at: now)
        let rate = s.rates[entry.id]?.bytesPerSecond ?? 0
        var sizes = ByteSize.format(entry.bytesDone)
        var eta = ""
        var fraction: Double? = nil
        if let total = entry.bytesExpected, total > 0 {
            sizes += "/" + ByteSize.format(total)
            fraction = min(1, Double(entry.bytesDone) / Double(total))
            // All sent, the server may take minutes to store or check it (the answer
            // timeout): a speed falling to 0 with "ETA 0s" read as a hang.
            if entry.sends, entry.bytesDone >= total { return (fraction, "  \(sizes)  sent, waiting for the answer") }
            if rate > 0 { eta = "  ETA " + Self.eta(seconds: Int64((Double(total - entry.bytesDone) / rate).rounded())) }
        }
        return (fraction, "  \(sizes)  \(ByteSize.format(Int64(rate)))/s\(eta)")
    }

    /// One transfer's line: its name in the names' column, its bar (none under 5 columns),
    /// then its tail, cut to the terminal's width.
    private func line(name: String, _ part: (fraction: Double?, tail: String), nameColumns: Int, barWidth: Int, width: Int) -> String {
        var bar = ""
        if barWidth >= 5 {
            let filled = Int((part.fraction ?? 0) * Double(barWidth))
            bar = " [" + String(repeating: "#", count: filled) + String(repeating: part.fraction == nil ? "?" : "-", count: barWidth - filled) + "]"
        }
        return DisplayWidth.prefix(DisplayWidth.fitted(name, columns: nameColumns) + bar + part.tail, columns: width - 1)
    }

    /// Time left as people read it: `45s`, `12m05s`, `1h08m` (a large file's `4094s` said
    /// nothing at a glance).
    static func eta(seconds: Int64) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(String(zeroPadded: Int(s % 60), width: 2))s" }
        return "\(s / 3600)h\(String(zeroPadded: Int(s % 3600 / 60), width: 2))m"
    }

    /// Cursor up `lines` and clear to the end of the screen.
    private func erase(_ lines: Int) -> String {
        lines == 0 ? "" : "\u{1B}[\(lines)F\u{1B}[J"
    }
}

extension String {
    /// Padded with spaces to `width` characters (columns of plain text output).
    public func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
