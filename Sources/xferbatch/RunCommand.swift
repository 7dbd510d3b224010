import ArgumentParser
import Foundation
import Logging
import XferBatch
import XferCurl

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the manifest's transfers, in dependency order, within its limits.",
        discussion: """
            Progress goes to stderr: on a terminal, a live display of the transfers under way; \
            otherwise one plain line per job event and a progress line every --progress-interval. \
            The closing summary goes to stdout.

            SIGINT, SIGTERM or SIGHUP stops starting new jobs, cancels transfers (partial files \
            stay), writes the report and exits 130, 143 or 129; a second SIGINT exits at once. \
            Under nohup, SIGHUP stays ignored.

            \(ExitStatus.helpText)
            """
    )

    @OptionGroup var options: ManifestOptions
    @OptionGroup var selection: JobSelection

    @Flag(help: "Stop starting or retrying jobs after the first failure; attempts under way finish.")
    var failFast = false

    @OptionGroup var stateOptions: StateOptions

    @Option(help: ArgumentHelp("When another run holds the state folder, wait for it instead of exiting 3: with no value (or forever) until it ends, else at most this long (e.g. --wait-lock=10m).", valueName: "duration"))
    var waitLock: String?

    @Flag(help: "Send uploads again even when their source did not change.")
    var force = false

    @Option(help: ArgumentHelp("Flush partial downloads to the disk this often, so a resume after a reboot or power loss loses at most this much (e.g. 5s; off: never).", valueName: "duration"))
    var durableInterval = "5s"

    @Option(help: ArgumentHelp("Write the run report (JSON, schemas/report.schema.json) to this file, or - for stdout.", valueName: "file"))
    var report: String?

    @Option(help: ArgumentHelp("Write a JUnit XML report (one test case per job) to this file, or - for stdout.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Write events as JSON Lines to this file, or - for stdout.", valueName: "file"))
    var events: String?

    @Option(help: ArgumentHelp("Print a progress line this often during long runs (e.g. 30s, 1m).", valueName: "duration"))
    var progressInterval: String = "30s"

    @Flag(name: .shortAndLong, help: "Print nothing but errors and the summary.")
    var quiet = false

    @Option(help: ArgumentHelp("Log level for diagnostics on stderr: trace, debug, info, notice, warning, error.", valueName: "level"))
    var logLevel: Logger.Level = .warning

    @Flag(name: .short, help: "Same as --log-level debug.")
    var verbose = false

    func validate() throws {
        guard DurationText.parse(progressInterval) != nil else {
            throw ValidationError("--progress-interval: \"\(progressInterval)\" is not a duration such as 30s or 1m")
        }
        if durableInterval != "off", (DurationText.parse(durableInterval) ?? .zero) <= .zero {
            throw ValidationError("--durable-interval: \"\(durableInterval)\" is not a duration such as 5s or 1m, or off")
        }
        if let waitLock, WaitLockArgument.wait(waitLock) == nil {
            throw ValidationError("--wait-lock: \"\(waitLock)\" is not a duration such as 30s or 10m, or forever")
        }
        if [events, report, junit].filter({ $0 == "-" }).count > 1 {
            throw ValidationError("only one of --events, --report and --junit can write to stdout (-)")
        }
        // Each would replace the other's document, and the last written wins.
        let files = [("--events", events), ("--report", report), ("--junit", junit)].compactMap { option, path in
            path.flatMap { $0 == "-" ? nil : (option, URL(fileURLWithPath: $0).standardizedFileURL.path) }
        }
        for (i, first) in files.enumerated() {
            if let second = files[(i + 1)...].first(where: { $0.1 == first.1 }) {
                throw ValidationError("\(first.0) and \(second.0) name the same file, \(first.1); give each its own")
            }
        }
    }

    func run() async throws {
        // libcurl's one-time set-up runs on the other processor while the manifest is read,
        // and is over before any exit (see there why).
        CurlLibrary.initialiseInBackground()
        defer { CurlLibrary.finishInitialisation() }
        LogSetup.bootstrap()
        var (plan, source) = try options.load(stateFolder: stateOptions.state)
        plan = try selection.apply(to: plan)
        for (option, path) in [("--report", report), ("--junit", junit)] {
            guard let path, path != "-", let problem = ReportFile.prepare(writing: path) else { continue }
            StandardStreams.writeError("xferbatch: \(option): cannot write \(path): \(problem)\n")
            throw ExitCode(ExitStatus.invalidInput.rawValue)
        }
        // A CI system reading the file as JUnit would fail on it, after the whole run.
        if let report, report.lowercased().hasSuffix(".xml") {
            StandardStreams.writeError("xferbatch: warning: --report writes the JSON report; \(report) will hold JSON (the JUnit XML report is --junit)\n")
        }
        if let warning = OpenFileLimit.fit(&plan.limits, openFiles: OpenFileLimit.raise()) {
            StandardStreams.writeError("xferbatch: warning: \(warning)\n")
        }
        let environment = ProcessInfo.processInfo.environment
        var logger = Logger(label: "xferbatch")
        logger.logLevel = verbose ? .debug : logLevel
        let lock = try await stateOptions.lock(for: plan, wait: waitLock.flatMap(WaitLockArgument.wait) ?? .no, canWait: true)
        let store = try stateOptions.writableStore(for: plan)
        if store.recovered > 0 {
            logger.info("adopted finished jobs a killed run had not committed", metadata: ["jobs.count": "\(store.recovered)"])
        }
        let clock = ContinuousExecutionClock()
        let engines: [TransferEngine]
        do {
            let lanes = Executor.laneCount(for: plan, processors: ProcessInfo.processInfo.activeProcessorCount)
            engines = try (0..<lanes).map { _ in try TransferEngine(logger: logger) }
        } catch {
            StandardStreams.writeError("xferbatch: cannot start the transfer engine: \(error)\n")
            throw ExitCode(ExitStatus.jobsFailed.rawValue)
        }
        var sinks: [any EventSink] = []
        let board = ProgressBoard()
        let display = !quiet && Terminal.canRedraw(fileDescriptor: 2, environment: environment)
            ? TerminalDisplay(board: board, clock: clock, width: { Terminal.width(fileDescriptor: 2) },
                              color: environment["NO_COLOR"] == nil) { StandardStreams.writeError($0) }
            : nil
        if let display {
            sinks.append(display)
        } else if !quiet {
            sinks.append(PlainTextEventSink(clock: clock) { StandardStreams.writeError($0) })
        }
        var eventsFile: JSONLinesFile?
        if let events {
            guard let file = JSONLinesFile.open(events) else {
                StandardStreams.writeError("xferbatch: cannot write events to \(events): \(String(cString: strerror(errno)))\n")
                throw ExitCode(ExitStatus.invalidInput.rawValue)
            }
            eventsFile = file
            sinks.append(JSONLinesEventSink(clock: clock, write: file.write))
        }
        let lines = ProgressLines(board: board)
        sinks.append(lines)
        let executor = Executor(plan: plan, lanes: engines, clock: clock, events: FanOutEventSink(sinks),
                                environment: environment, options: .init(failFast: failFast, checkpoints: store, force: force,
                                                              durableInterval: DurationText.parse(durableInterval)), logger: logger, board: board)
        let startedAt = Date()
        let runTask = Task { await executor.run() }
        let signals = InterruptHandler { runTask.cancel() }
        let ticker = quiet ? nil : Task {
            if let display {
                // A terminal: redraw at most ten times a second.
                while !Task.isCancelled {
                    display.redraw()
                    try await Task.sleep(for: .milliseconds(100))
                }
            } else {
                let interval = DurationText.parse(progressInterval) ?? .seconds(30)
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    let now = clock.now()
                    StandardStreams.writeError("[\(PlainTextEventSink.seconds(now))] \(lines.line(at: now))\n")
                }
            }
        }
        let result = await runTask.value
        do {
            // Commits what is grouped and closes the database: its last write to the disk.
            try store.close()
        } catch {
            // The journal (or the write-ahead log) still holds them: the next run adopts them.
            StandardStreams.writeError("xferbatch: warning: \(error) (the next run picks up what this one finished from the state folder)\n")
        }
        ticker?.cancel()
        _ = await ticker?.result
        display?.finish()
        for engine in engines { await engine.shutdown() }
        var reportWritten = false
        var reportFailed = false
        if let report {
            let fingerprint = FileDigest.sha256(of: source.bytes)  // as read: edited since, it is another manifest
            let bytes = RunReport(result: result, plan: plan, manifestFingerprint: fingerprint, startedAt: startedAt).json()
            if let reason = Self.write(bytes, to: report) {
                StandardStreams.writeError("xferbatch: cannot write the report to \(report): \(reason)\n")
                reportFailed = true
            } else {
                reportWritten = true
            }
        }
        if let junit, let reason = Self.write(Array(JUnitReport(result: result, plan: plan).xml().utf8), to: junit) {
            StandardStreams.writeError("xferbatch: cannot write the JUnit report to \(junit): \(reason)\n")
            reportFailed = true
        }
        // With --events -, --report - or --junit -, stdout carries that document only: the
        // summary goes to stderr.
        let toStderr = [events, report, junit].contains("-")
        let summary = { (text: String) in toStderr ? StandardStreams.writeError(text) : StandardStreams.write(text) }
        summary(result.summaryText())
        if reportWritten, let report, report != "-" { summary("Report: \(report)\n") }
        var status = result.summary.interrupted ? InterruptHandler.exitStatus(for: signals.received) : result.exitStatus
        // A report or events a cron job or CI step reads are part of the result: missing or
        // cut short, the run did not succeed.
        if reportFailed || eventsFile?.failed() == true, status == .success { status = .jobsFailed }
        lock.release()
        ProcessExit.skippingTeardown(of: (plan, result, executor), status: status)
    }

    /// A report to `path`, or to stdout for `-`: nil when written, else why not.
    private static func write(_ bytes: [UInt8], to path: String) -> String? {
        guard path == "-" else { return ReportFile.write(bytes, to: path) }
        StandardStreams.write(bytes)
        return nil
    }
}
