import Foundation
import Synchronization
import Testing
import XferBatch
import XferFixtures

/// `xferbatch run` end to end: the real binary, the real engine, fixture servers on two
/// loopback hosts.
@Suite("xferbatch run")
struct RunCommandTests {
    /// A tmpfs of `bytes` for a full-disk test, or nil (and, in CI, which runs as root, a
    /// recorded failure) when this machine cannot mount one.
    static func smallDisk(bytes: Int) -> SmallFilesystem? {
        let disk = SmallFilesystem.mount(bytes: bytes)
        if disk == nil, ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("cannot mount a tmpfs: CI runs as root") }
        return disk
    }

    /// A 64 KiB tmpfs filled up by one file, `filler` (see `smallDisk`).
    static func fullDisk() -> SmallFilesystem? {
        guard let disk = smallDisk(bytes: 64 << 10) else { return nil }
        let filler = open(disk.path + "/filler", O_WRONLY | O_CREAT, 0o644)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(filler, block, block.count) > 0 {}
        close(filler)
        return disk
    }

    final class Scratch: @unchecked Sendable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-run-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func twoHundredJobsWithTransientAndPermanentFailures() async throws {
        let scratch = try Scratch()
        let a = try await FixtureServer.start(host: "127.0.0.1")
        let b = try await FixtureServer.start(host: "127.0.0.2")
        var jobs: [String] = []
        var transient = Set<Int>(), permanent: Set<Int> = [50, 120]
        var dependsOn: [Int: Int] = [:]
        for i in 0..<200 {
            let server = i % 2 == 0 ? a : b
            let name = "f\(i).bin"
            if !permanent.contains(i) { server.addFile(name, Array("content of \(i)\n".utf8)) }
            if i % 10 == 3 {
                transient.insert(i)
                // j13's 429s hold its host for their backoff: a host-held event.
                server.script("/files/\(name)", i == 13 ? [.status(429), .status(429)] : [.status(503), .status(503)])
            }
            var job = #"{"id": "j\#(i)""#
            if i >= 10, i % 4 == 0 {
                dependsOn[i] = i - 10
                job += #", "dependsOn": ["j\#(i - 10)"]"#
            }
            job += #", "download": {"url": "\#(server.baseURL)/files/\#(name)", "to": "\#(name)"}}"#
            jobs.append(job)
        }
        _ = permanent.remove(-1)
        let manifest = #"""
            {"version": 1, "outputDir": "out", "limits": {"concurrency": 6, "perHost": 4},
             "defaults": {"retry": {"attempts": 4, "initialDelay": "10ms", "maxDelay": "50ms"}},
             "jobs": [\#(jobs.joined(separator: ",\n"))]}
            """#
        try manifest.write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "--report", scratch.path("report.json"),
                                            "--events", scratch.path("events.jsonl")])
        await a.stop()
        await b.stop()
        #expect(result.status == 1, "\(result.stderr.suffix(2000))")

        // Expected: the permanent ones fail, everything downstream of them is skipped.
        var skipped = Set<Int>()
        for i in 0..<200 {
            if let d = dependsOn[i], permanent.contains(d) || skipped.contains(d) { skipped.insert(i) }
        }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("report.json")))) as? [String: Any]
        let reported = try #require(report?["jobs"] as? [[String: Any]])
        #expect(reported.count == 200)
        #expect(report?["manifestSHA256"] as? String == (try FileDigest.sha256(ofFileAt: scratch.path("m.json"))))
        for (i, job) in reported.enumerated() {
            let expected = permanent.contains(i) ? "failed" : skipped.contains(i) ? "skipped" : "succeeded"
            #expect(job["status"] as? String == expected, "j\(i)")
            if transient.contains(i), !skipped.contains(i) {
                #expect((job["attempts"] as? [Any])?.count == 3, "j\(i) failed twice, then succeeded")
            }
        }
        #expect(FileManager.default.contents(atPath: scratch.path("out/f199.bin")) == Data("content of 199\n".utf8))

        let schema = try await CommandRunner.runTool("python3", ["Tests/Manifests/check_schema.py", "schemas/report.schema.json", scratch.path("report.json")])
        #expect(schema.status == 0, "\(schema.stdout)")
        let events = try await CommandRunner.runTool("python3", ["Tests/Manifests/check_schema.py", "schemas/events.schema.json", "--lines", scratch.path("events.jsonl")])
        #expect(events.status == 0, "\(events.stdout)")
        #expect(try String(contentsOfFile: scratch.path("events.jsonl"), encoding: .utf8).contains(#""event":"host-held","host":"127.0.0.2:"#))

        #expect(a.maxConcurrentRequests <= 4)
        #expect(b.maxConcurrentRequests <= 4)
        #expect(FixtureServer.maxOverlap(a.requestIntervals + b.requestIntervals) <= 6)
        #expect(result.stdout.contains("failed  j50"))
    }

    /// The events a fixture run cannot provoke (an FTP server's 421, a host asking for a
    /// pause) match the schema as well.
    @Test func hostEventsMatchTheEventsSchema() async throws {
        let scratch = try Scratch()
        let lines = Mutex("")
        let sink = JSONLinesEventSink(clock: ContinuousExecutionClock()) { line in lines.withLock { $0 += String(decoding: line, as: UTF8.self) } }
        sink.handle(.hostHeld(host: "x.org", job: "a", code: "HTTP 429", wait: .seconds(30)))
        sink.handle(.hostLimited(host: "127.0.0.1:2121", job: "f3", code: "FTP 421", connections: 2))
        try lines.withLock { $0 }.write(toFile: scratch.path("events.jsonl"), atomically: true, encoding: .utf8)
        let check = try await CommandRunner.runTool("python3", ["Tests/Manifests/check_schema.py", "schemas/events.schema.json", "--lines", scratch.path("events.jsonl")])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(lines.withLock { $0 }.contains(#""event":"host-limited","host":"127.0.0.1:2121","job":"f3","error":"FTP 421","connections":2"#))
    }

    /// `generate | xferbatch run -` (or `/dev/stdin`, or a shell's `<(generate)`): paths
    /// resolve against the current folder, the state folder is `.xferbatch/stdin` there,
    /// and the report names the manifest by the bytes read. Before, a path naming a pipe
    /// failed "cannot read the file".
    @Test(arguments: [("-", "<stdin>"), ("/dev/stdin", "/dev/stdin")])
    func aManifestOnStandardInputRunsFromTheCurrentFolder(path: String, shownAs name: String) async throws {
        let scratch = try Scratch()
        let manifest = #"{"version": 1, "outputDir": "out", "jobs": [{"id": "a", "download": {"url": "data:,hello", "to": "a.txt"}}]}"#
        let run = try await CommandRunner.run(["run", path, "-q", "--report", "r.json"], stdin: manifest, in: scratch.folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.contents(atPath: scratch.path("out/a.txt")) == Data("hello".utf8))
        #expect(FileManager.default.fileExists(atPath: scratch.path(".xferbatch/stdin/checkpoints.sqlite")))
        let report = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: scratch.path("r.json")))) as? [String: Any]
        #expect(report?["manifestSHA256"] as? String == FileDigest.sha256(ofText: manifest))
        let again = try await CommandRunner.run(["run", path, "-q"], stdin: manifest, in: scratch.folder)
        #expect(again.stdout.hasPrefix("Done: 0 succeeded, 1 up-to-date of 1 jobs"))
        let wrong = try await CommandRunner.run(["plan", path], stdin: #"{"version": 1, "jobs": []}"#, in: scratch.folder)
        #expect(wrong.status == 2)
        #expect(wrong.stderr == "\(name):1:24: jobs: there are no jobs\n")
    }

    /// `run m.json c` runs c and what it depends on, and leaves the other jobs alone; an
    /// unknown id stops it before anything runs.
    @Test func jobsNamedAfterTheManifestRunWithWhatTheyNeedAndNothingElse() async throws {
        let scratch = try Scratch()
        try #"""
            {"version": 1, "outputDir": "out", "jobs": [
              {"id": "a", "download": {"url": "data:,a", "to": "a.txt"}},
              {"id": "b", "download": {"url": "data:,b", "to": "b.txt"}},
              {"id": "c", "dependsOn": ["a"], "download": {"url": "data:,c", "to": "c.txt"}}]}
            """#.write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let typo = try await CommandRunner.run(["run", "m.json", "c", "bb", "-q"], in: scratch.folder)
        #expect(typo.status == 2)
        #expect(typo.stderr == "no job \"bb\" in m.json (did you mean \"b\"?)\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".xferbatch")), "nothing ran, no state folder")
        let some = try await CommandRunner.run(["run", "m.json", "c", "--report", "r.json", "--events", "e.jsonl"], in: scratch.folder)
        #expect(some.stderr.contains("] run      manifest: 2 jobs (c and what it needs, of 3)\n"), "\(some.stderr)")
        #expect(some.status == 0, "\(some.stderr)")
        #expect(some.stdout.hasPrefix("Done: 2 succeeded of 2 jobs"))
        let report = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: scratch.path("r.json")))) as? [String: Any]
        let selection = report?["selection"] as? [String: Any]
        #expect(selection?["named"] as? [String] == ["c"] && selection?["manifestJobs"] as? Int == 3, "\(String(describing: report?["selection"]))")
        for (schema, file) in [("report", "r.json"), ("events", "e.jsonl")] {
            let check = try await CommandRunner.runTool("python3", ["Tests/Manifests/check_schema.py", "schemas/\(schema).schema.json"]
                                                        + (schema == "events" ? ["--lines"] : []) + [scratch.path(file)])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted() == ["a.txt", "c.txt"])
        let status = try await CommandRunner.run(["status", "m.json"], in: scratch.folder)
        #expect(status.stdout.contains("pending  b"), "\(status.stdout)")
        let selected = try await CommandRunner.run(["status", "m.json", "c"], in: scratch.folder)
        #expect(selected.stdout.hasSuffix("2 done, 0 partial, 0 failed, 0 pending of 2 jobs\n"), "b is neither shown nor taken for stale: \(selected.stdout)")
        let all = try await CommandRunner.run(["run", "m.json", "-q"], in: scratch.folder)
        #expect(all.stdout.hasPrefix("Done: 1 succeeded, 2 up-to-date of 3 jobs"))
    }

    @Test func aSuccessfulRunExitsZeroAndSaysWhereTheReportIs() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start()
        server.addFile("a.txt", Array("hello\n".utf8))
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "a", "download": {"url": "\#(server.baseURL)/files/a.txt", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "--report", scratch.path("r.json")])
        await server.stop()
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Done: 1 succeeded of 1 jobs"))
        #expect(result.stdout.contains("Report: \(scratch.path("r.json"))"))
        #expect(result.stderr.contains("] done     a 6 B in"))
        #expect(!result.stderr.contains("\u{1B}"), "no control characters in logs")
    }

    /// Checked before anything runs: a cron job's missing report folder is found at once,
    /// not after the night's transfers.
    @Test func aReportThatCannotBeWrittenStopsTheRunBeforeItStarts() async throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("folder"), withIntermediateDirectories: true)
        try #require(FileManager.default.createFile(atPath: scratch.path("blocker"), contents: Data("x".utf8)))
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let blocked = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", scratch.path("blocker/r.json")])
        #expect(blocked.status == 2)
        #expect(blocked.stderr.hasPrefix("xferbatch: --report: cannot write \(scratch.path("blocker/r.json")): cannot create the folder \(scratch.path("blocker"))"),
                "\(blocked.stderr)")
        let folder = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--junit", scratch.path("folder")])
        #expect(folder.status == 2)
        #expect(folder.stderr == "xferbatch: --junit: cannot write \(scratch.path("folder")): \(scratch.path("folder")) is a folder\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path).sorted() == ["blocker", "folder", "m.json"], "nothing ran")
    }

    /// As a run creates its output folders: `--report out/r.json`, with `out/` the output
    /// folder a first run creates, is the common case (the demo does it).
    @Test func aReportsMissingFolderIsCreated() async throws {
        let scratch = try Scratch()
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let run = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", scratch.path("out/reports/r.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/reports/r.json")))
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/a.txt")))
    }

    /// The jobs succeeded, but the report a CI step or cron wrapper reads is missing: exit 1.
    @Test func aReportThatCannotBeWrittenAtTheEndMakesTheRunExit1AndIsNotAnnounced() async throws {
        guard let disk = RunCommandTests.fullDisk() else { return }
        let scratch = try Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", disk.path + "/r.json"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("Done: 1 succeeded of 1 jobs"))
        #expect(!result.stdout.contains("Report:"))
        #expect(result.stderr == "xferbatch: cannot write the report to \(disk.path)/r.json: \(String(cString: strerror(ENOSPC)))\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["filler"], "no temporary file left behind")
    }

    /// `--events -` makes stdout a JSON Lines stream a program reads: nothing else goes there.
    @Test func eventsOnStdoutAreJSONLinesOnlyAndTheSummaryGoesToStderr() async throws {
        let scratch = try Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--events", "-", "--report", scratch.path("r.json")])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 3)
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "\(result.stdout)")
        #expect(result.stderr.hasPrefix("Done: 1 succeeded of 1 jobs"))
        #expect(result.stderr.contains("Report: \(scratch.path("r.json"))"))
    }

    /// `--report /dev/stdout` or `--events /dev/null` as root (a CI container): a file
    /// renamed over the path replaced the device node itself, for every program on the
    /// machine. A FIFO stands in for the device here; a link keeps leading to the report.
    @Test func reportsAndEventsGoIntoADeviceOrThroughALinkWithoutReplacingIt() async throws {
        let scratch = try Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        #expect(mkfifo(scratch.path("report.fifo"), 0o600) == 0 && mkfifo(scratch.path("events.fifo"), 0o600) == 0)
        // Readers first, so the run's opens do not wait; the pipes hold what it writes.
        let reports = open(scratch.path("report.fifo"), O_RDONLY | O_NONBLOCK), events = open(scratch.path("events.fifo"), O_RDONLY | O_NONBLOCK)
        defer { close(reports); close(events) }
        try "old".write(toFile: scratch.path("junit-target.xml"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("junit.xml"), withDestinationPath: "junit-target.xml")
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", scratch.path("report.fifo"),
                                                  "--events", scratch.path("events.fifo"), "--junit", scratch.path("junit.xml")])
        #expect(result.status == 0, "\(result.stderr)")
        for fifo in ["report.fifo", "events.fifo"] {
            var info = stat()
            #expect(lstat(scratch.path(fifo), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "\(fifo) is still a FIFO")
        }
        let report = try JSONSerialization.jsonObject(with: Data(Self.drain(reports))) as? [String: Any]
        #expect((report?["summary"] as? [String: Any])?["succeeded"] as? Int == 1)
        let lines = String(decoding: Self.drain(events), as: UTF8.self).split(separator: "\n")
        #expect(lines.first?.contains(#""event":"run-started""#) == true && lines.last?.contains(#""event":"run-finished""#) == true)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("junit.xml")) == "junit-target.xml")
        #expect(try String(contentsOfFile: scratch.path("junit-target.xml"), encoding: .utf8).contains("<testsuite"))
    }

    /// What a non-blocking descriptor holds now.
    static func drain(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { return bytes }
            bytes += buffer[..<n]
        }
    }

    /// As `--events -`: the document is all stdout carries, and only one may take it (nor
    /// may two documents name one file).
    @Test func aReportOnStdoutLeavesTheSummaryToStderrAndOnlyOneDocumentMayTakeStdout() async throws {
        let scratch = try Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", "-"], in: scratch.folder)
        #expect(result.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect((report?["summary"] as? [String: Any])?["succeeded"] as? Int == 1, "\(result.stdout)")
        #expect(result.stderr.hasPrefix("Done: 0 succeeded, 1 up-to-date of 1 jobs") || result.stderr.hasPrefix("Done: 1 succeeded of 1 jobs"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("-")))
        let both = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--junit", "-", "--events", "-"])
        #expect(both.status == 2)
        #expect(both.stderr.hasPrefix("Error: only one of --events, --report and --junit can write to stdout (-)"))
        let same = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--events", scratch.path("out.json"),
                                                "--report", scratch.path("./out.json")])
        #expect(same.status == 2)
        #expect(same.stderr.hasPrefix("Error: --events and --report name the same file, \(scratch.path("out.json")); give each its own"), "\(same.stderr)")
    }

    /// A full disk (or a FIFO's reader gone) under the events file: said once, and the run
    /// finishes with its outputs and exit status. Foundation's `FileHandle.write` trapped.
    @Test func eventsThatCannotBeWrittenAreSaidOnceAndTheRunGoesOn() async throws {
        guard let disk = RunCommandTests.fullDisk() else { return }
        let scratch = try Scratch()
        let jobs = (0..<5).map { #"{"id": "j\#($0)", "download": {"url": "data:,file \#($0)", "to": "f\#($0).txt"}}"# }
        try #"{"version": 1, "outputDir": "out", "jobs": [\#(jobs.joined(separator: ", "))]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--events", disk.path + "/events.jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Done: 5 succeeded of 5 jobs"))
        #expect(result.stderr == "xferbatch: events are no longer written to \(disk.path)/events.jsonl: \(String(cString: strerror(ENOSPC)))\n")
        #expect(FileManager.default.contents(atPath: scratch.path("out/f4.txt")) == Data("file 4".utf8))
    }

    /// A terminal that cannot move the cursor (`TERM=dumb`: Emacs' shell, some CI
    /// consoles) gets the plain log lines; before, every redraw of the live display piled
    /// up there as escape codes. A capable terminal keeps the live display.
    @Test(arguments: [("dumb", false), ("xterm", true)])
    func aDumbTerminalGetsThePlainLogNotTheLiveDisplay(term: String, redraws: Bool) async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start()
        server.addFile("slow.bin", [UInt8](repeating: 7, count: 20_000))
        server.script("/files/slow.bin", [.drip(bytesPerSecond: 20_000)])  // about a second: several redraws
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "slow", "download": {"url": "\#(server.baseURL)/files/slow.bin", "to": "slow.bin"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        // script(1) runs the command on a pseudo-terminal and copies what it shows to stdout.
        let result = try await CommandRunner.runTool("/usr/bin/env", ["TERM=\(term)", "script", "-qec",
                                                                       "\(CommandRunner.binary.path) run \(scratch.path("m.json"))", "/dev/null"])
        await server.stop()
        #expect(result.stdout.contains("Done: 1 succeeded of 1 jobs"), "\(result.stdout)")
        #expect(result.stdout.contains("\u{1B}[") == redraws, "\(result.stdout)")
        #expect(result.stdout.contains("] done     slow 19.5 KiB"), "the log line, in both")
    }

    @Test func aReportReplacesThePreviousOneWhole() async throws {
        let scratch = try Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        try String(repeating: "old report ", count: 10_000).write(toFile: scratch.path("r.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", scratch.path("r.json")])
        #expect(result.status == 0)
        let report = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: scratch.path("r.json"))))
        #expect((report as? [String: Any])?["jobs"] != nil, "a whole JSON report, nothing of the longer old one after it")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path).sorted() == [".xferbatch", "a.txt", "m.json", "r.json"])
    }

    /// `xferbatch run m.json | head`, or a CI log streamer that dies: the log's reader is
    /// gone, the run is not. It used to be killed by SIGPIPE at its first line.
    @Test func aRunWhoseOutputNobodyReadsStillFinishesAndReports() async throws {
        let scratch = try Scratch()
        let jobs = (0..<20).map { #"{"id": "j\#($0)", "download": {"url": "data:,file \#($0)", "to": "f\#($0).txt"}}"# }
        try #"{"version": 1, "outputDir": "out", "jobs": [\#(jobs.joined(separator: ", "))]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let status = try await CommandRunner.runWithoutReader(["run", scratch.path("m.json"), "--events", "-", "--report", scratch.path("r.json")])
        #expect(status == .exited(0), "\(status.map { "\($0)" } ?? "still running"); SIGPIPE is 13")
        for i in 0..<20 {
            #expect(FileManager.default.contents(atPath: scratch.path("out/f\(i).txt")) == Data("file \(i)".utf8))
        }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("r.json")))) as? [String: Any]
        #expect((report?["summary"] as? [String: Any])?["succeeded"] as? Int == 20)
    }

    @Test func sigintStopsTheRunWritesTheReportAndExits130() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start()
        let (status, stdout) = try await Self.signalDuringSlowDownload(SIGINT, scratch: scratch, server: server)
        await server.stop()
        #expect(status == 130)
        #expect(stdout.hasPrefix("Interrupted: 0 succeeded, 1 cancelled of 1 jobs"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("r.json")))
        let partial = FileManager.default.contents(atPath: scratch.path("out/slow.bin.xferpart"))
        #expect((partial?.count ?? 0) >= 1_000, "the partial file stays, with what arrived")
        #expect(partial.map { $0.allSatisfy { $0 == 7 } } == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/slow.bin")))
    }

    /// A closed terminal or SSH session sends SIGHUP: the run stops as for SIGTERM, with its
    /// report, and exits 129. Before, SIGHUP's default action ended it on the spot.
    @Test func sighupFromAClosedTerminalStopsTheRunWithItsReportAndExits129() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start()
        let (status, stdout) = try await Self.signalDuringSlowDownload(SIGHUP, scratch: scratch, server: server)
        await server.stop()
        #expect(status == 129, "a wait status of 1 (SIGHUP) would be the default action")
        #expect(stdout.hasPrefix("Interrupted: 0 succeeded, 1 cancelled of 1 jobs"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("r.json")))
    }

    /// Under `nohup` (SIGHUP inherited ignored) a hang-up changes nothing: the run finishes.
    @Test func underNohupSIGHUPIsIgnoredAndTheRunFinishes() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start()
        let (status, stdout) = try await Self.signalDuringSlowDownload(SIGHUP, scratch: scratch, server: server, bytes: 30_000,
                                                                       launcher: ["/usr/bin/nohup"])
        await server.stop()
        #expect(status == 0)
        #expect(stdout.hasPrefix("Done: 1 succeeded of 1 jobs"))
        #expect(FileManager.default.contents(atPath: scratch.path("out/slow.bin"))?.count == 30_000)
    }

    /// Runs a download of `bytes` dripped at 20 KB/s, sends `signal` once the body is
    /// flowing, and returns the exit status (or 1000 + the signal that ended the process)
    /// and stdout. `launcher` goes before the binary (e.g. `nohup`).
    static func signalDuringSlowDownload(_ signal: Int32, scratch: Scratch, server: FixtureServer, bytes: Int = 1_000_000,
                                         launcher: [String] = []) async throws -> (Int32, String) {
        server.addFile("slow.bin", Array(repeating: 7, count: bytes))
        server.script("/files/slow.bin", [.drip(bytesPerSecond: 20_000)])
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "slow", "download": {"url": "\#(server.baseURL)/files/slow.bin", "to": "slow.bin"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let command = launcher + [CommandRunner.binary.path, "run", scratch.path("m.json"), "--report", scratch.path("r.json")]
        let program = try RunningProgram(command[0], Array(command.dropFirst()))
        // Wait (bounded) until the body is flowing: a second drip is written 100 ms after
        // the first, which the client has had time to receive. Then signal.
        for _ in 0..<500 where server.dripped("slow.bin") < 4_000 { try await Task.sleep(for: .milliseconds(10)) }
        program.signal(signal)
        // On a thread of its own: the wait blocks, and the fixture server needs the pool's.
        let (ending, stdout): (RunningProgram.Ending, [UInt8]) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let (ending, stdout, _) = program.finish(within: .seconds(10))
                continuation.resume(returning: (ending, stdout))
            }
        }
        let status: Int32 = switch ending {
        case .exited(let code): code
        case .signalled(let signal): 1000 + signal
        }
        return (status, String(decoding: stdout, as: UTF8.self))
    }
}

@Suite("xferbatch run: state folder")
struct RunStateTests {
    @Test func aSecondRunOnTheSameStateFolderExits3NamingTheHolder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-lock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}]}"#
            .write(toFile: folder + "/m.json", atomically: true, encoding: .utf8)
        let lock = try await RunLock.acquire(stateFolder: folder + "/.xferbatch/m.json")
        let held = try await CommandRunner.run(["run", folder + "/m.json"])
        #expect(held.status == 3)
        #expect(held.stderr.contains("is locked by pid \(getpid()) since"))
        #expect(held.stderr.hasSuffix("Z (use --wait-lock to wait for it)\n"))
        // `reset` has no --wait-lock to suggest.
        let reset = try await CommandRunner.run(["reset", folder + "/m.json", "--all"])
        #expect(reset.status == 3)
        #expect(reset.stderr.hasSuffix("Z\n"))
        withExtendedLifetime(lock) {}
    }

    @Test func aBareWaitLockWaitsUntilTheHolderEndsAndThenRuns() async throws {
        let scratch = try RunCommandTests.Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        var lock: RunLock? = try await RunLock.acquire(stateFolder: scratch.path(".xferbatch/m.json"))
        try Data().write(to: URL(fileURLWithPath: scratch.path("err.txt")))
        // No value, and the manifest right after it: the manifest is not taken for the value.
        let program = try RunningProgram(CommandRunner.binary.path, ["run", "--wait-lock", scratch.path("m.json"), "-q"],
                                         stdout: .discard, stderr: .file(scratch.path("err.txt")))
        func stderr() -> String { (try? String(contentsOfFile: scratch.path("err.txt"), encoding: .utf8)) ?? "" }
        // Wait (bounded) until the run says it is waiting, then end the holder.
        for _ in 0..<500 where !stderr().contains("waiting") { try await Task.sleep(for: .milliseconds(10)) }
        #expect(stderr().contains("is locked by pid \(getpid()) since"))
        #expect(stderr().contains("; waiting until it ends"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("a.txt")), "nothing runs while the lock is held")
        lock = nil
        var ending: RunningProgram.Ending?
        for _ in 0..<500 where ending == nil {
            try await Task.sleep(for: .milliseconds(10))
            ending = program.poll()
        }
        if ending == nil { program.signal(SIGKILL) }
        #expect(ending == .exited(0), "the run went on once the lock was free")
        #expect((try? String(contentsOfFile: scratch.path("a.txt"), encoding: .utf8)) == "x")
        withExtendedLifetime(lock) {}
    }

    @Test func aWaitLockWithADurationGivesUpWithExit3() async throws {
        let scratch = try RunCommandTests.Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let lock = try await RunLock.acquire(stateFolder: scratch.path(".xferbatch/m.json"))
        let held = try await CommandRunner.run(["run", "--wait-lock", "300ms", scratch.path("m.json")])
        #expect(held.status == 3)
        #expect(held.stderr.contains("; waiting up to 300ms\n"))
        let last = held.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains("is locked by pid \(getpid()) since") && !last.contains("waiting"), "gave up, naming the holder")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("a.txt")))
        withExtendedLifetime(lock) {}
    }

    /// Each manifest has its own state folder (`.xferbatch/<file name>/`): a job id two
    /// manifests share is not taken for an edited job, nor one run's lock for the other's.
    @Test func manifestsSideBySideKeepTheirOwnStateAndLocks() async throws {
        let scratch = try RunCommandTests.Scratch()
        for (name, body) in [("a.json", "x"), ("b.json", "y")] {
            try #"{"version": 1, "jobs": [{"id": "docs", "download": {"url": "data:,\#(body)", "to": "\#(name).txt"}}]}"#
                .write(toFile: scratch.path(name), atomically: true, encoding: .utf8)
        }
        #expect(try await CommandRunner.run(["run", scratch.path("a.json")]).status == 0)
        #expect(try await CommandRunner.run(["run", scratch.path("b.json")]).status == 0)
        let again = try await CommandRunner.run(["run", scratch.path("a.json")])
        #expect(again.stdout.contains("0 succeeded, 1 up-to-date of 1 jobs"), "b's run left a's record alone")
        #expect(try await CommandRunner.run(["status", scratch.path("b.json")]).stdout.hasPrefix("done     docs  \(scratch.path("b.json.txt"))"))
        let lock = try await RunLock.acquire(stateFolder: scratch.path(".xferbatch/a.json"))
        #expect(try await CommandRunner.run(["run", scratch.path("b.json")]).status == 0, "a's lock does not hold b")
        withExtendedLifetime(lock) {}
    }

    @Test func cleaningOneManifestLeavesTheOthersStateAndTheLastTakesTheSharedFolder() async throws {
        let scratch = try RunCommandTests.Scratch()
        for name in ["a.json", "b.json"] {
            try #"{"version": 1, "jobs": [{"id": "docs", "download": {"url": "data:,x", "to": "\#(name).txt"}}]}"#
                .write(toFile: scratch.path(name), atomically: true, encoding: .utf8)
            #expect(try await CommandRunner.run(["run", scratch.path(name)]).status == 0)
        }
        #expect(try await CommandRunner.run(["clean", scratch.path("a.json")]).stdout == "removed \(scratch.path(".xferbatch/a.json"))\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path(".xferbatch")) == ["b.json"])
        #expect(try await CommandRunner.run(["status", scratch.path("b.json")]).stdout.hasPrefix("done "))
        #expect(try await CommandRunner.run(["clean", scratch.path("b.json")]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".xferbatch")))
    }

    @Test func cleanWithAStateFolderHoldingOtherFilesKeepsThemAndExits1() async throws {
        let scratch = try RunCommandTests.Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        #expect(try await CommandRunner.run(["run", scratch.path("m.json"), "--state", scratch.folder.path]).status == 0)
        let clean = try await CommandRunner.run(["clean", scratch.path("m.json"), "--state", scratch.folder.path])
        #expect(clean.status == 1)
        #expect(clean.stderr == "xferbatch: kept the folder \(scratch.folder.path): it holds files xferbatch did not write (a.txt, m.json)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder.path).sorted() == ["a.txt", "m.json"])
    }

    @Test func aWaitLockValueThatIsNotADurationIsAUsageError() async throws {
        let result = try await CommandRunner.run(["run", "--wait-lock=soon", "examples/quickstart.json"])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"--wait-lock: "soon" is not a duration such as 30s or 10m, or forever"#))
    }

    @Test func aPartialIsFlushedPeriodicallyAndAfterARebootResumesFromTheFlushedOffset() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        let content = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 10) }
        server.addFile("slow.bin", content)
        // About 10 s for the whole file: the run is killed long before it could finish.
        server.script("/files/slow.bin", [.drip(bytesPerSecond: 200_000)])
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "slow", "download": {"url": "\#(server.baseURL)/files/slow.bin", "to": "slow.bin"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let program = try RunningProgram(CommandRunner.binary.path,
                                         ["run", scratch.path("m.json"), "--state", scratch.path("state"), "--durable-interval", "100ms", "-q"],
                                         stdout: .discard, stderr: .discard)
        // Wait (bounded) for a flushed offset to be recorded, then kill the run outright.
        var durable: Int64 = 0
        for _ in 0..<400 where durable == 0 {
            try await Task.sleep(for: .milliseconds(20))
            // Read-only, as `status` reads: a writable open would create and migrate the
            // store itself, racing the run that is creating it (which then fails to open it).
            durable = (try? SQLiteCheckpointStore.reading(path: scratch.path("state/checkpoints.sqlite")).load("slow"))??.durableBytes ?? 0
        }
        program.signal(SIGKILL)
        #expect(program.wait(upTo: .seconds(10)) == .signalled(SIGKILL))
        let partial = scratch.path("out/slow.bin.xferpart")
        let length = try FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int64 ?? 0
        #expect(durable > 0)
        #expect(durable <= length)

        // A reboot: another boot id on the record; the bytes past the flushed offset are junk.
        let store = try SQLiteCheckpointStore(path: scratch.path("state/checkpoints.sqlite"))
        var record = try #require(try store.load("slow"))
        record.bootID = "a-boot-before-the-power-cut"
        try store.save(record)
        let handle = try #require(FileHandle(forWritingAtPath: partial))
        handle.seek(toFileOffset: UInt64(durable))
        handle.write(Data(repeating: 0, count: 4096))
        try handle.close()
        server.script("/files/slow.bin", [])
        let resumed = try await CommandRunner.run(["run", scratch.path("m.json"), "--state", scratch.path("state")])
        await server.stop()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(server.requests(to: "/files/slow.bin").last?.header("Range") == "bytes=\(durable)-")
        #expect(FileManager.default.contents(atPath: scratch.path("out/slow.bin")) == Data(content))
    }

    /// A manifest of `count` downloads of 16 KiB from `server`, all allowed at once.
    static func manyDownloads(_ count: Int, from server: FixtureServer, into scratch: RunCommandTests.Scratch) throws {
        let jobs = (0..<count).map { i in
            server.addFile("f\(i).bin", (0..<16_384).map { UInt8(truncatingIfNeeded: $0 &+ i) })
            return #"{"id": "f\#(i)", "download": {"url": "\#(server.baseURL)/files/f\#(i).bin", "to": "f\#(i).bin"}}"#
        }
        try #"{"version": 1, "outputDir": "out", "limits": {"concurrency": \#(count), "perHost": \#(count)}, "jobs": [\#(jobs.joined(separator: ","))]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
    }

    /// `xferbatch ARGS` run by `sh` after `ulimit LIMIT` (e.g. `-n 160`).
    static func underUlimit(_ limit: String, _ args: String, _ scratch: RunCommandTests.Scratch) async throws -> CommandRunner.Result {
        try await CommandRunner.runTool("sh", ["-c", #"ulimit \#(limit) && exec "$0" \#(args) "$1""#, CommandRunner.binary.path, scratch.path("m.json")])
    }

    @Test func aConcurrencyTheOpenFileLimitCannotHoldIsLoweredToFitAndEveryJobSucceeds() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        try Self.manyDownloads(200, from: server, into: scratch)
        // 160 open files at most, soft and hard: 200 partial files alone would not fit.
        let plan = try await Self.underUlimit("-n 160", "plan", scratch)
        #expect(plan.stdout.contains("limits: 12 transfers at once, 12 per host"), "\(plan.stdout)")
        let run = try await Self.underUlimit("-n 160", "run -q", scratch)
        await server.stop()
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stderr == "xferbatch: warning: limits.concurrency 200 needs about 1096 open files, and this process may open 160 (ulimit -n): running 12 transfers at once\n")
        #expect(run.stdout.hasPrefix("Done: 200 succeeded of 200 jobs"))
    }

    @Test func aLowSoftOpenFileLimitIsRaisedToTheHardOneAndNothingIsLowered() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_max >= 1_024 else { return }  // 150 transfers need 846 files: not here
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        try Self.manyDownloads(150, from: server, into: scratch)
        let run = try await Self.underUlimit("-S -n 160", "run -q", scratch)
        await server.stop()
        #expect(run.stderr == "", "no warning: the hard limit holds 150 transfers")
        #expect(run.stdout.hasPrefix("Done: 150 succeeded of 150 jobs"))
    }

    @Test func aFullDiskFailsTheDownloadKeepsThePartialAndTheNextRunResumesIt() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 1 << 20) else { return }
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        let content = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 12) }
        server.addFile("big.bin", content)
        // No length to check beforehand: the disk fills while the body arrives.
        server.script("/files/big.bin", [.chunked])
        try #"{"version": 1, "outputDir": "\#(disk.path)", "jobs": [{"id": "big", "download": {"url": "\#(server.baseURL)/files/big.bin", "to": "big.bin"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let arguments = ["run", scratch.path("m.json"), "--state", scratch.path("state")]

        let full = try await CommandRunner.run(arguments)
        #expect(full.status == 1)
        #expect(full.stderr.contains("ENOSPC"), "\(full.stderr)")
        #expect(full.stderr.contains("No space left on device"))
        let kept = try FileManager.default.attributesOfItem(atPath: disk.path + "/big.bin.xferpart")[.size] as? Int ?? 0
        #expect(kept > 0, "the partial file stays for a later resume")
        #expect(!FileManager.default.fileExists(atPath: disk.path + "/big.bin"))

        #expect(disk.resize(bytes: 8 << 20))
        let resumed = try await CommandRunner.run(arguments)
        await server.stop()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(FileManager.default.contents(atPath: disk.path + "/big.bin") == Data(content))
        #expect(server.requests(to: "/files/big.bin").last?.header("Range") == "bytes=\(kept)-")
    }

    /// Runs a manifest downloading each of `names` from `server` into `folder` (job ids:
    /// the names without extension), with its state elsewhere.
    static func runDownloads(_ names: [String], from server: FixtureServer, into folder: String) async throws -> CommandRunner.Result {
        let scratch = try RunCommandTests.Scratch()
        let jobs = names.map { name in
            #"{"id": "\#(name.split(separator: ".")[0])", "download": {"url": "\#(server.baseURL)/files/\#(name)", "to": "\#(name)"}}"#
        }
        try #"{"version": 1, "outputDir": "\#(folder)", "jobs": [\#(jobs.joined(separator: ", "))]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        return try await CommandRunner.run(["run", scratch.path("m.json"), "--state", scratch.path("state")])
    }

    /// The manifest gave no size, but the response's Content-Length does: checked before
    /// the first byte is written, so the disk is never filled, and no partial holds it.
    @Test func aBodyLargerThanTheFreeSpaceIsRefusedBeforeItsFirstByteAndOthersGoOn() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 1 << 20) else { return }
        let server = try await FixtureServer.start()
        server.addFile("big.bin", [UInt8](repeating: 7, count: 3 << 20))
        server.addFile("small.bin", [UInt8](repeating: 8, count: 1000))
        let run = try await Self.runDownloads(["big.bin", "small.bin"], from: server, into: disk.path)
        await server.stop()
        #expect(run.status == 1)
        #expect(run.stderr.contains("FAILED   big after 1 attempt: no-space: \(disk.path)/big.bin needs 3 MiB more, but only "), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: disk.path + "/big.bin.xferpart"), "nothing written")
        #expect(FileManager.default.contents(atPath: disk.path + "/small.bin")?.count == 1000)
    }

    /// Each alone fits the disk, both do not: the second to answer is refused before its
    /// first byte, instead of both filling the disk and one failing with ENOSPC.
    @Test func twoDownloadsUnderWayCannotPromiseTheDiskMoreThanItHas() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 2 << 20) else { return }
        let server = try await FixtureServer.start()
        for name in ["a.bin", "b.bin"] {
            server.addFile(name, [UInt8](repeating: 7, count: 3 << 19))
            server.script("/files/\(name)", [.drip(bytesPerSecond: 4 << 20)])  // both under way at once
        }
        let run = try await Self.runDownloads(["a.bin", "b.bin"], from: server, into: disk.path)
        await server.stop()
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix("Done: 1 succeeded, 1 failed of 2 jobs"), "\(run.stdout)")
        // The free space and the promise both shrink by what the first has written so far.
        #expect(run.stderr.range(of: #"no-space: \S+/[ab]\.bin needs 1\.5 MiB more, but only [0-9.]+ [KM]iB is free there \([0-9.]+ [KM]iB of it promised to downloads under way\)"#,
                                 options: .regularExpression) != nil, "\(run.stderr)")
        #expect(!run.stderr.contains("ENOSPC"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: disk.path)
        #expect(kept.count == 1 && kept.allSatisfy { $0.hasSuffix(".bin") }, "one file, no partial: \(kept)")
    }

    /// Foundation's errors ("NSCocoaErrorDomain error 512") never reach the user: each
    /// message names the folder and the file in its way.
    @Test func aFileWhereAFolderShouldBeFailsThoseJobsWithAMessageNamingIt() async throws {
        let scratch = try RunCommandTests.Scratch()
        try #require(FileManager.default.createFile(atPath: scratch.path("blocker"), contents: Data("x".utf8)))
        try #"""
            {"version": 1, "jobs": [
              {"id": "a", "download": {"url": "data:,a", "to": "blocker/sub/a.txt"}},
              {"id": "b", "download": {"url": "data:,b", "to": "b.txt"}},
              {"id": "t", "download": {"url": "data:,never-read", "to": "t.tar"}},
              {"id": "pack", "archive": {"from": ["b"], "to": "blocker/p.tar.gz"}},
              {"id": "unpack", "extract": {"from": "t", "to": "blocker/x"}}
            ]}
            """#.write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("Done: 2 succeeded, 3 failed of 5 jobs"))
        let blocker = scratch.path("blocker")
        #expect(result.stdout.contains("failed  a: mkdir: cannot create the folder \(blocker)/sub: \(blocker) is a file, not a folder\n"))
        #expect(result.stdout.contains("failed  pack: mkdir: cannot create the folder \(blocker): a file of that name is in the way\n"))
        #expect(result.stdout.contains("failed  unpack: mkdir: cannot create the folder \(blocker): a file of that name is in the way\n"))
        #expect(!result.stdout.contains("NSCocoaErrorDomain"))
    }

    @Test func aStateFolderThatCannotBeCreatedExits2SayingWhyAndHowToMoveIt() async throws {
        let scratch = try RunCommandTests.Scratch()
        try #require(FileManager.default.createFile(atPath: scratch.path("blocker"), contents: Data("x".utf8)))
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "--state", scratch.path("blocker/state")])
        #expect(result.status == 2)
        #expect(result.stderr == "xferbatch: cannot create the folder \(scratch.path("blocker/state")): \(scratch.path("blocker")) is a file, not a folder (--state DIR keeps the state elsewhere)\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("a.txt")), "nothing ran")
    }

    @Test func aRerunOfAFinishedManifestTransfersNothingAndExitsZero() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-rerun-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}, {"id": "b", "download": {"url": "data:,y", "to": "b.txt"}}]}"#
            .write(toFile: folder + "/m.json", atomically: true, encoding: .utf8)
        #expect(try await CommandRunner.run(["run", folder + "/m.json"]).status == 0)
        let again = try await CommandRunner.run(["run", folder + "/m.json"])
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("Done: 0 succeeded, 2 up-to-date of 2 jobs"))
    }
}

@Suite("xferbatch run: archive inputs")
struct ArchiveInputCommandTests {
    /// `tar` exits 2 on a folder it cannot read; the walk passed over it in silence and the
    /// archive was built without its files. Now `plan` says the job fails, and the run fails
    /// it naming the folder.
    @Test func aFolderUnderAnArchiveInputThatCannotBeReadFailsTheJobAndPlanSaysSo() async throws {
        let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("xferbatch-unreadable-\(UUID().uuidString)")
        let secret = folder.appendingPathComponent("out/d/secret")
        try FileManager.default.createDirectory(at: secret, withIntermediateDirectories: true)
        defer {
            chmod(secret.path, 0o700)
            try? FileManager.default.removeItem(at: folder)
        }
        try Data("a".utf8).write(to: folder.appendingPathComponent("out/d/a.txt"))
        try Data("s".utf8).write(to: secret.appendingPathComponent("s.txt"))
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "z", "archive": {"from": ["d"], "to": "d.tar"}}, {"id": "s", "archive": {"from": ["d/secret"], "to": "s.tar"}}]}"#
            .write(to: folder.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        for path in [folder.path, folder.path + "/out", folder.path + "/out/d"] { chmod(path, 0o777) }
        chmod(folder.path + "/m.json", 0o644)
        chmod(secret.path, getuid() == 0 ? 0o700 : 0o000)  // as root: root's folder, which nobody cannot read
        let plan = try await CommandRunner.runUnprivileged(["plan", "m.json"], in: folder)
        #expect(plan.stdout.components(separatedBy: "run: fails: cannot read the folder out/d/secret: Permission denied").count == 3,
                "both the folder's and its parent's archive: \(plan.stdout)\(plan.stderr)")
        let run = try await CommandRunner.runUnprivileged(["run", "m.json"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("FAILED   z after 1 attempt: EACCES: cannot read the folder \(secret.path): Permission denied"), "\(run.stderr)")
        #expect(run.stderr.contains("FAILED   s after 1 attempt: EACCES: cannot read the folder \(secret.path): Permission denied"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out/d.tar"))
    }
}

@Suite("xferbatch status, reset, clean")
struct StateCommandTests {
    @Test func statusResetAndCleanFollowTheStateFolder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-state-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/m.json"
        // `t`: a tar.gz of one file, x.txt, extracted into out/x/.
        let tarball = "H4sIALQJA2sC/+3NwQmEMBQE0H+2CitYRGK2HlvQCCnfuKfFu4L43mWGuUz9lFriWkOTU/plc85m/OvHnr9pin6IG2xrmZd2Ge9UuwAAAAAAAAAAAOCBdkkW7OQAKAAA"
        try (#"{"version": 1, "outputDir": "out", "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}, {"id": "b", "download": {"url": "data:,y", "to": "b.txt"}}, "#
            + #"{"id": "t", "download": {"url": "data:;base64,\#(tarball)", "to": "t.tgz"}}, {"id": "x", "extract": {"from": "t", "to": "x/"}}]}"#)
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        #expect(try await CommandRunner.run(["status", manifest]).stdout.hasSuffix("0 done, 0 partial, 0 failed, 4 pending of 4 jobs\n"))
        #expect(try await CommandRunner.run(["run", manifest]).status == 0)
        let done = try await CommandRunner.run(["status", manifest])
        #expect(done.stdout.contains("done     a  \(folder)/out/a.txt  sha256 2d711642b726"))
        #expect(done.stdout.hasSuffix("4 done, 0 partial, 0 failed, 0 pending of 4 jobs\n"))
        let forecast = try await CommandRunner.run(["plan", manifest])
        #expect(forecast.stdout.contains("run: up to date (out/a.txt): nothing to transfer"))
        let json = try await CommandRunner.run(["status", manifest, "--json"])
        #expect(json.stdout.contains(#""state": "done""#))
        #expect(try await CommandRunner.run(["reset", manifest]).status == 2, "reset needs job ids or --all")
        #expect(try await CommandRunner.run(["reset", manifest, "a"]).stdout == "reset 1 job; deleted 0 partial files\n")
        #expect(try await CommandRunner.run(["status", manifest]).stdout.hasSuffix("3 done, 0 partial, 0 failed, 1 pending of 4 jobs\n"))
        #expect(FileManager.default.contents(atPath: folder + "/out/x/x.txt") == Data("x\n".utf8))
        let clean = try await CommandRunner.run(["clean", manifest, "--outputs"])
        #expect(clean.stdout == "removed \(folder)/.xferbatch/m.json, 3 output files and 1 extracted folder\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out/a.txt"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out/x"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/.xferbatch"))
    }

    /// A manifest whose job `big` (2 MiB, resumable) fails after 300,000 bytes and keeps its
    /// partial, with a second job `small`; the partial's path.
    static func leaveAPartial(_ scratch: RunCommandTests.Scratch, _ server: FixtureServer) async throws -> String {
        server.addFile("big.bin", (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.script("/files/big.bin", [.closeAfter(bytes: 300_000)])
        try manifest(scratch, jobs: [bigJob(server, to: "big.bin"), smallJob])
        let failed = try await CommandRunner.run(["run", scratch.path("m.json")])
        #expect(failed.status == 1)
        let partial = scratch.path("out/big.bin.xferpart")
        #expect(FileManager.default.fileExists(atPath: partial), "\(failed.stderr)")
        return partial
    }

    /// `leaveAPartial`, then the manifest without `big`; the partial's path.
    static func takeOutAJobWithAPartial(_ scratch: RunCommandTests.Scratch) async throws -> String {
        let server = try await FixtureServer.start()
        let partial = try await leaveAPartial(scratch, server)
        await server.stop()
        try manifest(scratch, jobs: [smallJob])
        return partial
    }

    static func bigJob(_ server: FixtureServer, to: String) -> String {
        #"{"id": "big", "download": {"url": "\#(server.baseURL)/files/big.bin", "to": "\#(to)", "retry": {"attempts": 1}}}"#
    }

    static let smallJob = #"{"id": "small", "download": {"url": "data:,x", "to": "small.txt"}}"#

    static func manifest(_ scratch: RunCommandTests.Scratch, jobs: [String]) throws {
        try #"{"version": 1, "outputDir": "out", "jobs": [\#(jobs.joined(separator: ","))]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
    }

    /// `status` and `plan` read a state folder they may not write in (another user's, a
    /// read-only mount or cache): SQLite would need to create its `-shm` file there.
    @Test func statusAndPlanReadAStateFolderOnAReadOnlyFileSystem() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 4 << 20) else { return }
        let scratch = try RunCommandTests.Scratch()
        try Self.manifest(scratch, jobs: [Self.smallJob])
        #expect(try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--state", disk.path]).status == 0)
        #expect(disk.makeReadOnly())
        let status = try await CommandRunner.run(["status", scratch.path("m.json"), "--state", disk.path])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasSuffix("1 done, 0 partial, 0 failed, 0 pending of 1 jobs\n"))
        let plan = try await CommandRunner.run(["plan", scratch.path("m.json"), "--state", disk.path])
        #expect(plan.stdout.contains("run: up to date (out/small.txt): nothing to transfer"), "\(plan.stdout)\(plan.stderr)")
    }

    /// The length the server announces is checked against the manifest's `size` before the
    /// body: one request, nothing written, no retry (each would fetch the same file whole).
    @Test func aLengthThatIsNotTheManifestsSizeFailsBeforeTheBody() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        server.addFile("a.bin", Array(repeating: 7, count: 100_000))
        try Self.manifest(scratch, jobs: [#"{"id": "a", "download": {"url": "\#(server.baseURL)/files/a.bin", "to": "a.bin", "size": 1000}}"#])
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        await server.stop()
        #expect(result.status == 1)
        #expect(result.stdout.contains("failed  a: size-mismatch: the server announces 100000 bytes, the manifest says 1000"), "\(result.stdout)")
        #expect(server.requests(to: "/files/a.bin").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).isEmpty, "no partial, no final file")
    }

    /// Without a length (a chunked body), a body shorter than the size is known at its end:
    /// it is discarded and retried, as a body cut short in transit may come whole next time.
    /// One longer is stopped when it passes the size and not asked for again: it is another
    /// file, or a stream without end (6.8 GB in 20 s reached the disk from a server on
    /// loopback for a file of 1 MiB).
    @Test(arguments: [(500, "received 500 bytes, the manifest says 1000", 2),
                      (3_000_000, "the server sends more than the 1000 bytes the file should have; stopped there", 1)])
    func aChunkedBodyOfAnotherSizeFails(bytes: Int, message: String, requests: Int) async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        server.addFile("a.bin", Array(repeating: 7, count: bytes))
        server.script("/files/a.bin", [.chunked, .chunked])
        try Self.manifest(scratch, jobs: [#"{"id": "a", "download": {"url": "\#(server.baseURL)/files/a.bin", "to": "a.bin", "size": 1000, "retry": {"attempts": 2, "initialDelay": "10ms"}}}"#])
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        await server.stop()
        #expect(result.status == 1)
        #expect(result.stdout.contains("failed  a: size-mismatch: \(message)"), "\(result.stdout)")
        #expect(server.requests(to: "/files/a.bin").count == requests)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).isEmpty, "no partial, no final file")
    }

    /// The manifest gives no `size`: the server's Content-Length is recorded with the
    /// partial, so `status` gives a percentage and `plan` what the resume still needs.
    @Test func aPartialShowsHowMuchOfTheSizeTheServerAnnouncedItHolds() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        _ = try await Self.leaveAPartial(scratch, server)
        await server.stop()
        let status = try await CommandRunner.run(["status", scratch.path("m.json")])
        #expect(status.stdout.contains("partial  big  14%  "), "300,000 of 2,097,152 bytes: \(status.stdout)")
        let json = try await CommandRunner.run(["status", scratch.path("m.json"), "--json"])
        #expect(json.stdout.contains(#""expectedBytes": 2097152"#))
        let plan = try await CommandRunner.run(["plan", scratch.path("m.json")])
        #expect(plan.stdout.contains("run: resume at 293 KiB of 2 MiB (14%)"), "\(plan.stdout)")
        #expect(plan.stdout.contains("disk: 1.7 MiB of known sizes to download"), "the rest of the file, not nothing: \(plan.stdout)")
    }

    @Test func aJobTakenOutOfTheManifestIsListedByStatusAndResetStaleDeletesItsPartial() async throws {
        let scratch = try RunCommandTests.Scratch()
        let partial = try await Self.takeOutAJobWithAPartial(scratch)

        let status = try await CommandRunner.run(["status", scratch.path("m.json")])
        #expect(status.stdout.hasSuffix("1 done, 0 partial, 0 failed, 0 pending of 1 jobs\n"
                                        + "1 record of jobs no longer in the manifest (big), with 1 partial file of 293 KiB; reset --stale forgets them\n"))
        let json = try await CommandRunner.run(["status", scratch.path("m.json"), "--json"])
        #expect(json.stdout.contains(#""partialPath": "\#(partial)""#))
        #expect(json.stdout.contains(#""partialBytes": 300000"#))
        #expect(try await CommandRunner.run(["run", scratch.path("m.json")]).status == 0)
        #expect(FileManager.default.fileExists(atPath: partial), "a run keeps it: the job may come back")

        let reset = try await CommandRunner.run(["reset", scratch.path("m.json"), "--stale"])
        #expect(reset.stdout == "reset 1 job; deleted 1 partial file\n")
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(try await CommandRunner.run(["status", scratch.path("m.json")]).stdout.hasSuffix("of 1 jobs\n"))
    }

    @Test func resetTakesTheIdOfAJobNoLongerInTheManifestButNotAnIdNobodyHas() async throws {
        let scratch = try RunCommandTests.Scratch()
        let partial = try await Self.takeOutAJobWithAPartial(scratch)
        let typo = try await CommandRunner.run(["reset", scratch.path("m.json"), "bgi"])
        #expect(typo.status == 2)
        #expect(typo.stderr == "xferbatch: no job has the id \"bgi\", in the manifest or in the state folder\n")
        #expect(try await CommandRunner.run(["reset", scratch.path("m.json"), "big"]).stdout == "reset 1 job; deleted 1 partial file\n")
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    @Test func aTypoInResetCreatesNoStateFolder() async throws {
        let scratch = try RunCommandTests.Scratch()
        try Self.manifest(scratch, jobs: [Self.smallJob])
        #expect(try await CommandRunner.run(["reset", scratch.path("m.json"), "nope"]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".xferbatch")))
    }

    @Test func aJobGivenAnotherDestinationDeletesThePartialItsOldOneLeft() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        let partial = try await Self.leaveAPartial(scratch, server)
        try Self.manifest(scratch, jobs: [Self.bigJob(server, to: "renamed.bin"), Self.smallJob])
        let run = try await CommandRunner.run(["run", scratch.path("m.json")])
        await server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(FileManager.default.contents(atPath: scratch.path("out/renamed.bin"))?.count == 2 << 20)
    }

    @Test func cleanDeletesPartialFilesAndKeepsOutputsWithoutOutputs() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        let partial = try await Self.leaveAPartial(scratch, server)
        await server.stop()
        let clean = try await CommandRunner.run(["clean", scratch.path("m.json")])
        #expect(clean.stdout == "removed \(scratch.path(".xferbatch/m.json")) and 1 partial file\n")
        #expect(!FileManager.default.fileExists(atPath: partial), "no later run could resume it without the state")
        #expect(FileManager.default.contents(atPath: scratch.path("out/small.txt")) == Data("x".utf8))
    }

    @Test func statusAndPlanLeaveADamagedStoreWhereItIs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-state-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/.xferbatch/m.json", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/m.json"
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}]}"#
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        let garbage = Data(repeating: 0x5A, count: 8192)
        _ = FileManager.default.createFile(atPath: folder + "/.xferbatch/m.json/checkpoints.sqlite", contents: garbage)
        let status = try await CommandRunner.run(["status", manifest])
        #expect(status.status == 0)
        #expect(status.stdout.hasSuffix("0 done, 0 partial, 0 failed, 1 pending of 1 jobs\n"))
        #expect(status.stderr.contains("xferbatch: warning: the state database \(folder)/.xferbatch/m.json/checkpoints.sqlite is unreadable"))
        #expect(try await CommandRunner.run(["plan", manifest]).status == 0)
        #expect(FileManager.default.contents(atPath: folder + "/.xferbatch/m.json/checkpoints.sqlite") == garbage, "dry runs touch nothing")
        // A run moves it aside and starts over.
        let run = try await CommandRunner.run(["run", manifest])
        #expect(run.status == 0)
        #expect(run.stderr.contains("moved it to \(folder)/.xferbatch/m.json/checkpoints.sqlite.corrupt-"))
    }
}
