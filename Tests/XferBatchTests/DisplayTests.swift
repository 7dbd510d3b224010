import Synchronization
import Testing
@testable import XferBatch
import XferCurl

@Suite("Progress displays")
struct DisplayTests {
    final class Screen: Sendable {
        let text = Mutex("")
        func write(_ s: String) { text.withLock { $0 += s } }
    }

    func board(doneBytes: Int64, of total: Int64) -> ProgressBoard {
        let board = ProgressBoard()
        let progress = TransferProgress()
        progress.update(done: doneBytes, expected: total)
        board.register("dataset", progress, at: .zero)
        return board
    }

    @Test func theLiveDisplayDrawsABarPerTransferAndAnOverallLine() {
        let screen = Screen()
        let display = TerminalDisplay(board: board(doneBytes: 1 << 20, of: 4 << 20), clock: ContinuousExecutionClock(), width: { 80 },
                                      color: false, write: screen.write)
        display.handle(.runStarted(jobs: 3, name: nil))
        display.handle(.jobSucceeded(id: "readme", bytes: 263, duration: .milliseconds(5), destination: "out/readme.txt"))
        display.redraw()
        let text = screen.text.withLock { $0 }
        #expect(text.contains("done     readme 263 B"), "event lines are printed above the block")
        #expect(text.contains("dataset          [#######-----------------------]  1 MiB/4 MiB"), "a quarter of a 30-column bar")
        #expect(text.contains("1/3 jobs done, 0 failed · 1 MiB"))
        #expect(!text.contains("\u{1B}[1m"), "no colour with NO_COLOR")
        #expect(text.split(separator: "\n").allSatisfy { $0.count < 80 }, "lines fit the terminal")
    }

    /// The first redraw can come before the run has announced its jobs: it drew
    /// "0/0 jobs done" for a moment at the start of every run.
    @Test func nothingIsDrawnBeforeTheRunHasStarted() {
        let screen = Screen()
        let display = TerminalDisplay(board: ProgressBoard(), clock: ContinuousExecutionClock(), width: { 80 },
                                      color: false, write: screen.write)
        display.redraw()
        #expect(screen.text.withLock { $0 } == "")
        display.handle(.runStarted(jobs: 2, name: nil))
        display.redraw()
        #expect(screen.text.withLock { $0 }.contains("0/2 jobs done"))
    }

    /// A terminal made narrower during a run: the next redraw fits the new width, or its
    /// lines would wrap and the block's erasing would leave stale lines behind.
    @Test func theBlockFitsTheTerminalsWidthAfterAResize() {
        let screen = Screen()
        let columns = Mutex(100)
        let display = TerminalDisplay(board: board(doneBytes: 1 << 20, of: 4 << 20), clock: ContinuousExecutionClock(),
                                      width: { columns.withLock { $0 } }, color: false, write: screen.write)
        display.handle(.runStarted(jobs: 1, name: nil))
        display.redraw()
        #expect(screen.text.withLock { $0 }.split(separator: "\n").contains { $0.count > 50 }, "drawn for 100 columns")
        columns.withLock { $0 = 50 }
        screen.text.withLock { $0 = "" }
        display.redraw()
        let lines = screen.text.withLock { $0 }.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.replacing("\u{1B}[2F\u{1B}[J", with: "").count < 50 }, "\(lines)")
    }

    /// A job id in Japanese takes two columns a character: counted in characters, its
    /// line was wider than the terminal, wrapped, and each redraw then erased too few lines.
    @Test func wideCharactersAreCountedInColumnsSoTheBlockStillFits() {
        let screen = Screen()
        let board = ProgressBoard()
        let progress = TransferProgress()
        progress.update(done: 1 << 20, expected: 4 << 20)
        board.register("データセット-東京-2026年-夜間同期", progress, at: .zero)
        let display = TerminalDisplay(board: board, clock: ContinuousExecutionClock(), width: { 40 }, color: false, write: screen.write)
        display.handle(.runStarted(jobs: 1, name: nil))
        display.redraw()
        let lines = screen.text.withLock { $0 }.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("データ…-夜間同期  1 MiB/4 MiB") }, "16 columns: 3 wide characters, the ellipsis, a hyphen and 4 wide; \(lines)")
        #expect(lines.allSatisfy { DisplayWidth.of($0) < 40 }, "\(lines)")
        #expect(DisplayWidth.of("東京") == 4 && DisplayWidth.of("Tokyo") == 5 && DisplayWidth.of("e\u{301}") == 1)
    }

    /// Ids too long for their column keep their start and their end, so that ids differing
    /// only at the end stay apart (cut at the end, both read `nightly-backup-d`); a wider
    /// terminal gives the column room for them whole.
    @Test(arguments: [(60, ["nightly-b…e-shard-07", "nightly-b…e-shard-08"]),
                      (120, ["nightly-backup-database-shard-07 ", "nightly-backup-database-shard-08 "])])
    func longIdsKeepTheirEndsAndUseTheRoomAWideTerminalGives(columns: Int, shown: [String]) {
        let screen = Screen()
        let board = ProgressBoard()
        for shard in ["07", "08"] {
            let progress = TransferProgress()
            progress.update(done: 1 << 20, expected: 4 << 20)
            board.register("nightly-backup-database-shard-\(shard)", progress, at: .zero)
        }
        let display = TerminalDisplay(board: board, clock: ContinuousExecutionClock(), width: { columns }, color: false, write: screen.write)
        display.handle(.runStarted(jobs: 2, name: nil))
        display.redraw()
        let lines = screen.text.withLock { $0 }.split(separator: "\n")
        for name in shown { #expect(lines.contains { $0.hasPrefix(name) }, "\(lines)") }
        #expect(lines.allSatisfy { DisplayWidth.of($0) < columns }, "\(lines)")
    }

    /// Every line's bar has the same width and starts in the same column: sized by each
    /// line's own tail, a line with a time left lost its bar on a narrow terminal while the
    /// next one kept it.
    @Test func theBarsLineUpWhateverEachLinesTail() throws {
        let screen = Screen()
        let board = ProgressBoard()
        let known = TransferProgress(), unknown = TransferProgress()
        known.update(done: 1 << 20, expected: 4 << 20)
        unknown.update(done: 10_000, expected: nil)
        board.register("known", known, at: .zero)
        board.register("unknown", unknown, at: .zero)
        let display = TerminalDisplay(board: board, clock: ContinuousExecutionClock(), width: { 64 }, color: false, write: screen.write)
        display.handle(.runStarted(jobs: 2, name: nil))
        display.redraw()
        let lines = screen.text.withLock { $0 }.split(separator: "\n").filter { $0.contains("known") }
        #expect(lines.count == 2)
        let bars = lines.map { line in (line.firstIndex(of: "[").map { line.distance(from: line.startIndex, to: $0) },
                                        line.firstIndex(of: "]").map { line.distance(from: line.startIndex, to: $0) }) }
        let first = try #require(bars.first)
        #expect(first.0 != nil && bars.allSatisfy { $0 == first }, "\(lines)")
    }

    /// A large file's time left reads at a glance: `1h08m`, not `4094s`.
    @Test func theTimeLeftIsShownInHoursAndMinutes() {
        let screen = Screen()
        let clock = VirtualClock()
        let board = ProgressBoard()
        let progress = TransferProgress()
        progress.update(done: 1 << 20, expected: 4 << 30)
        board.register("iso", progress, at: .zero)
        let display = TerminalDisplay(board: board, clock: clock, width: { 100 }, color: false, write: screen.write)
        display.handle(.runStarted(jobs: 1, name: nil))
        display.redraw()
        progress.update(done: 2 << 20, expected: 4 << 30)
        clock.advance(by: .seconds(1))  // 1 MiB/s, 4,094 MiB to go
        screen.text.withLock { $0 = "" }
        display.redraw()
        #expect(screen.text.withLock { $0 }.contains("ETA 1h08m"), "\(screen.text.withLock { $0 })")
        #expect([TerminalDisplay.eta(seconds: 45), TerminalDisplay.eta(seconds: 725), TerminalDisplay.eta(seconds: 4094)] == ["45s", "12m05s", "1h08m"])
    }

    /// An upload all sent waits for the server's answer, which may take minutes (the answer
    /// timeout): its line says so, where a speed falling to 0 with "ETA 0s" read as a hang.
    @Test func anUploadAllSentSaysItWaitsForTheAnswer() {
        let screen = Screen()
        let board = ProgressBoard()
        for (id, sends) in [("publish", true), ("fetch", false)] {
            let progress = TransferProgress()
            progress.update(done: 4 << 20, expected: 4 << 20)
            board.register(id, progress, sends: sends, at: .zero)
        }
        let display = TerminalDisplay(board: board, clock: VirtualClock(), width: { 100 }, color: false, write: screen.write)
        display.handle(.runStarted(jobs: 2, name: nil))
        display.redraw()
        let lines = screen.text.withLock { $0 }.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("publish ") && $0.hasSuffix("]  4 MiB/4 MiB  sent, waiting for the answer") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("fetch ") && $0.hasSuffix("]  4 MiB/4 MiB  0 B/s") }, "a download says nothing of the kind: \(lines)")
    }

    /// Data that arrives in bursts (2 MiB each second, as from a server that sends in bursts) is
    /// shown at its steady speed: an average of each redraw's instant speed swung from an
    /// eighth of it to three times it (0.25 to 6.2 MiB/s), and the time left with it.
    @Test func aSpeedThatComesInBurstsIsShownSteady() throws {
        let screen = Screen()
        let clock = VirtualClock()
        let board = ProgressBoard()
        let progress = TransferProgress()
        board.register("bursty", progress, at: .zero)
        let display = TerminalDisplay(board: board, clock: clock, width: { 100 }, color: false, write: screen.write)
        display.handle(.runStarted(jobs: 1, name: nil))
        var shown: [Double] = []
        for tick in 0...80 {  // 8 s of redraws, ten a second
            if tick % 10 == 0 { progress.update(done: Int64(tick / 10) * (2 << 20), expected: 64 << 20) }
            screen.text.withLock { $0 = "" }
            display.redraw()
            clock.advance(by: .milliseconds(100))
            guard tick >= 30 else { continue }  // once the speed covers its whole window
            let line = try #require(screen.text.withLock { $0 }.split(separator: "\n").first { $0.contains("bursty") })
            let speed = try #require(line.firstMatch(of: /([0-9.]+) (B|KiB|MiB)\/s/)?.output)
            let perMiB: Double = speed.2 == "MiB" ? 1 : speed.2 == "KiB" ? 1024 : 1_048_576
            shown.append(try #require(Double(String(speed.1))) / perMiB)
        }
        #expect(shown.allSatisfy { (1.8...2.2).contains($0) }, "MiB/s: \(shown)")
    }

    /// A transfer that breaks off keeps its bytes in the total shown (they are on the disk,
    /// and the summary counts them): before, the total dropped when the attempt ended.
    @Test func theTotalShownKeepsWhatAnAttemptMovedBeforeItBrokeOff() {
        let board = ProgressBoard()
        let lines = ProgressLines(board: board)
        lines.handle(.runStarted(jobs: 2, name: nil))
        let first = TransferProgress(), second = TransferProgress()
        first.update(done: 3 << 20, expected: 8 << 20)
        second.update(done: 1 << 20, expected: 8 << 20)
        board.register("a", first, at: .zero)
        board.register("b", second, at: .seconds(1))
        #expect(lines.line(at: .seconds(2)).contains("2 running, 4 MiB so far"))
        board.unregister("a", failedAfter: first.bytesDone)
        #expect(lines.line(at: .seconds(3)).contains("1 running, 4 MiB so far"), "\(lines.line(at: .seconds(3)))")
        #expect(board.snapshot().entries.map(\.id) == ["b"])
    }

    @Test func finishingErasesTheBlockSoOnlyEventsAndTheSummaryRemain() {
        let screen = Screen()
        let display = TerminalDisplay(board: board(doneBytes: 10, of: 100), clock: ContinuousExecutionClock(), width: { 60 },
                                      color: true, write: screen.write)
        display.handle(.runStarted(jobs: 1, name: nil))
        display.redraw()
        screen.text.withLock { $0 = "" }
        display.finish()
        #expect(screen.text.withLock { $0 } == "\u{1B}[2F\u{1B}[J", "cursor up over the two lines drawn, then clear")
    }

    /// The log of a resumed download says where it resumed, and its speed is that of the
    /// bytes fetched (200 MiB in 10 s), not of the whole file (300 MiB in 10 s).
    @Test func theLogSaysWhereADownloadResumedAndGivesTheSpeedOfWhatItFetched() {
        let lines = Mutex("")
        let log = PlainTextEventSink(clock: VirtualClock()) { line in lines.withLock { $0 += line } }
        let mib: Int64 = 1 << 20
        log.handle(.jobStarted(id: "big", attempt: 1, source: "https://x.org/big", destination: "out/big", resumeFrom: 100 * mib))
        log.handle(.jobSucceeded(id: "big", bytes: 300 * mib, duration: .seconds(10), destination: "out/big", resumedFrom: 100 * mib))
        log.handle(.jobStarted(id: "new", attempt: 1, source: "https://x.org/new", destination: "out/new"))
        log.handle(.jobSucceeded(id: "new", bytes: 300 * mib, duration: .seconds(10), destination: "out/new"))
        #expect(lines.withLock { $0 } == """
            [  0.00s] start    big (attempt 1): https://x.org/big -> out/big, resuming at 100 MiB
            [  0.00s] done     big 300 MiB in 10.00s (20 MiB/s; resumed at 100 MiB)
            [  0.00s] start    new (attempt 1): https://x.org/new -> out/new
            [  0.00s] done     new 300 MiB in 10.00s (30 MiB/s)

            """)
    }

    /// A small file takes well under a millisecond on a fast link: its speed is its bytes
    /// over that time, not over a whole millisecond.
    @Test func theSpeedOfAFileFetchedInUnderAMillisecondIsNotRoundedToOne() {
        let lines = Mutex("")
        let log = PlainTextEventSink(clock: VirtualClock()) { line in lines.withLock { $0 += line } }
        log.handle(.jobSucceeded(id: "small", bytes: 16384, duration: .microseconds(300), destination: "out/small"))
        log.handle(.jobSucceeded(id: "slower", bytes: 16384, duration: .microseconds(1900), destination: "out/slower"))
        #expect(lines.withLock { $0 } == """
            [  0.00s] done     small 16 KiB in 0.00s (52.1 MiB/s)
            [  0.00s] done     slower 16 KiB in 0.00s (8.2 MiB/s)

            """)
    }

    /// An archive's done line names what it passed over, the first three of them.
    @Test func anArchivesDoneLineNamesWhatItPassedOver() {
        let lines = Mutex("")
        let log = PlainTextEventSink(clock: VirtualClock()) { line in lines.withLock { $0 += line } }
        let kinds = ["a named pipe", "a socket", "a symbolic link to nothing", "a socket"]
        let passed = kinds.enumerated().map { ArchiveStats.PassedOver(path: "data/p\($0.offset)", kind: $0.element) }
        log.handle(.jobSucceeded(id: "z", bytes: 1024, duration: .seconds(1), destination: "data.tar",
                                 archive: ArchiveStats(entries: 1, bytesIn: 2, bytesOut: 1024, passedOver: passed)))
        #expect(lines.withLock { $0 } == "[  0.00s] done     z 1 KiB in 1.00s (1 KiB/s, 1 entry from 2 B); passed over (no content): "
                + "data/p0, a named pipe; data/p1, a socket; data/p2, a symbolic link to nothing; and 1 more (the report lists them)\n")
    }

    @Test func thePlainProgressLineCountsJobsAndBytesAndGivesTheSpeedSinceTheLineBefore() {
        let lines = ProgressLines(board: board(doneBytes: 2048, of: 4096))
        lines.handle(.runStarted(jobs: 4, name: nil))
        lines.handle(.jobSucceeded(id: "a", bytes: 1024, duration: .seconds(1), destination: "a"))
        lines.handle(.jobSkipped(id: "b", reason: "dependency x failed"))
        #expect(lines.line(at: .seconds(2)) == "progress 2/4 jobs finished, 1 running, 3 KiB so far, 1.5 KiB/s")
        lines.handle(.jobSucceeded(id: "c", bytes: 10240, duration: .seconds(1), destination: "c"))
        #expect(lines.line(at: .seconds(4)) == "progress 3/4 jobs finished, 1 running, 13 KiB so far, 5 KiB/s", "the speed since the line before")
    }

    /// Failures so far, and jobs waiting out a retry delay (which a "0 running" alone would
    /// make look like a run that hangs), are counted when there are any.
    @Test func thePlainProgressLineCountsFailuresAndJobsWaitingToRetry() {
        let lines = ProgressLines(board: ProgressBoard())
        let busy = JobFailure(kind: .transient, code: "HTTP 503", message: "unavailable")
        lines.handle(.runStarted(jobs: 4, name: nil))
        lines.handle(.jobFailed(id: "a", reason: "HTTP 404", attempts: 1))
        lines.handle(.jobRetrying(id: "b", attempt: 1, failure: busy, delay: .seconds(30)))
        lines.handle(.jobRetrying(id: "c", attempt: 1, failure: busy, delay: .seconds(30)))
        #expect(lines.line(at: .seconds(1)) == "progress 1/4 jobs finished (1 failed), 0 running, 2 waiting to retry, 0 B so far, 0 B/s")
        lines.handle(.jobStarted(id: "b", attempt: 2, source: "https://x.org/b", destination: "b"))
        lines.handle(.jobSkipped(id: "c", reason: "not retried: --fail-fast after a failed"))
        #expect(lines.line(at: .seconds(2)) == "progress 2/4 jobs finished (1 failed), 0 running, 0 B so far, 0 B/s")
    }
}
