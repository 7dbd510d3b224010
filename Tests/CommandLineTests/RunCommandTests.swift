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
        fill(disk)
        return disk
    }

    /// Takes what room is left on `disk` with one file, `filler`.
    static func fill(_ disk: SmallFilesystem) {
        let filler = open(disk.path + "/filler", O_WRONLY | O_CREAT, 0o644)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(filler, block, block.count) > 0 {}
        close(filler)
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
        sink.handle(.hostGivenUp(host: "mirror.example", job: "f9", code: "CURLE_OPERATION_TIMEDOUT", jobs: 3))
        try lines.withLock { $0 }.write(toFile: scratch.path("events.jsonl"), atomically: true, encoding: .utf8)
        let check = try await CommandRunner.runTool("python3", ["Tests/Manifests/check_schema.py", "schemas/events.schema.json", "--lines", scratch.path("events.jsonl")])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(lines.withLock { $0 }.contains(#""event":"host-limited","host":"127.0.0.1:2121","job":"f3","error":"FTP 421","connections":2"#))
        #expect(lines.withLock { $0 }.contains(#""event":"host-given-up","host":"mirror.example","job":"f9","error":"CURLE_OPERATION_TIMEDOUT","jobs":3"#))
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

    /// Large bodies are hashed as they arrive from the engine's write buffers, which an
    /// HTTP download waits to lend; a `file:` copy cannot wait (libcurl cannot pause it)
    /// and failed with CURLE_WRITE_ERROR until it no longer asked to.
    @Test func largeDownloadsOverHTTPAndFromFileURLsAreHashedAndVerified() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start()
        let content = (0..<(12 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 16) }
        let sha = FileDigest.sha256(of: content)
        server.addFile("big.bin", content)
        try Data(content).write(to: URL(fileURLWithPath: scratch.path("source.bin")))
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "http", "download": {"url": "\#(server.baseURL)/files/big.bin", "to": "http.bin", "sha256": "\#(sha)"}}, {"id": "file", "download": {"url": "file://\#(scratch.path("source.bin"))", "to": "file.bin", "sha256": "\#(sha)"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        await server.stop()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.hasPrefix("Done: 2 succeeded of 2 jobs"))
        for name in ["http.bin", "file.bin"] {
            #expect(try FileDigest.sha256(ofFileAt: scratch.path("out/\(name)")) == sha, "\(name)")
        }
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

    /// `--report results.xml` where `--junit` was meant: said before the run, not found
    /// by the CI system that fails to read the file as XML afterwards.
    @Test func aJSONReportNamedXMLIsWarnedAbout() async throws {
        let scratch = try Scratch()
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", scratch.path("results.xml")])
        #expect(result.status == 0)
        #expect(result.stderr == "xferbatch: warning: --report writes the JSON report; \(scratch.path("results.xml")) will hold JSON (the JUnit XML report is --junit)\n")
        #expect(try String(contentsOfFile: scratch.path("results.xml"), encoding: .utf8).hasPrefix("{"))
        let json = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--report", scratch.path("results.json")])
        #expect(json.stderr == "")
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
    /// finishes with its outputs (Foundation's `FileHandle.write` trapped), then exits 1 as
    /// for a report it could not write: a CI step reading the events gets them cut short.
    @Test func eventsThatCannotBeWrittenAreSaidOnceAndTheRunGoesOnToExit1() async throws {
        guard let disk = RunCommandTests.fullDisk() else { return }
        let scratch = try Scratch()
        let jobs = (0..<5).map { #"{"id": "j\#($0)", "download": {"url": "data:,file \#($0)", "to": "f\#($0).txt"}}"# }
        try #"{"version": 1, "outputDir": "out", "jobs": [\#(jobs.joined(separator: ", "))]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--events", disk.path + "/events.jsonl"])
        #expect(result.status == 1, "\(result.stderr)")
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

    /// Jobs an interrupt finds not started are counted apart from those it stopped, and get
    /// no log line each: a Ctrl-C in a run of 2,000 jobs printed 1,755 "stopped" lines and
    /// called every one of them cancelled.
    @Test func anInterruptCountsTheJobsItFoundNotStartedApartAndDoesNotListThem() async throws {
        let scratch = try Scratch()
        let server = try await FixtureServer.start()
        let (status, stdout, stderr) = try await Self.signalDuringSlowDownloadWithLog(SIGINT, scratch: scratch, server: server, waitingJobs: 3)
        await server.stop()
        #expect(status == 130)
        #expect(stdout.hasPrefix("Interrupted: 0 succeeded, 1 cancelled, 3 not started of 4 jobs"), "\(stdout)")
        #expect(stderr.contains("stopped  slow: interrupted"), "\(stderr)")
        #expect(!stderr.contains("after-"), "no line for a job that never started: \(stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("r.json")))) as? [String: Any]
        let summary = report?["summary"] as? [String: Any]
        #expect(summary?["cancelled"] as? Int == 1)
        #expect(summary?["notStarted"] as? Int == 3)
        #expect(summary?["jobs"] as? Int == 4)
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
                                         launcher: [String] = [], waitingJobs: Int = 0) async throws -> (Int32, String) {
        let (status, stdout, _) = try await signalDuringSlowDownloadWithLog(signal, scratch: scratch, server: server, bytes: bytes,
                                                                             launcher: launcher, waitingJobs: waitingJobs)
        return (status, stdout)
    }

    /// `signalDuringSlowDownload`, giving standard error too; `waitingJobs` jobs named
    /// `after-N` depend on the slow one, so the signal finds them not started.
    static func signalDuringSlowDownloadWithLog(_ signal: Int32, scratch: Scratch, server: FixtureServer, bytes: Int = 1_000_000,
                                                launcher: [String] = [], waitingJobs: Int = 0) async throws -> (Int32, String, String) {
        server.addFile("slow.bin", Array(repeating: 7, count: bytes))
        server.script("/files/slow.bin", [.drip(bytesPerSecond: 20_000)])
        let waiting = (0..<waitingJobs).map { #", {"id": "after-\#($0)", "dependsOn": ["slow"], "download": {"url": "data:,\#($0)", "to": "after-\#($0).txt"}}"# }
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "slow", "download": {"url": "\#(server.baseURL)/files/slow.bin", "to": "slow.bin"}}\#(waiting.joined())]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let command = launcher + [CommandRunner.binary.path, "run", scratch.path("m.json"), "--report", scratch.path("r.json")]
        let program = try RunningProgram(command[0], Array(command.dropFirst()))
        // Wait (bounded) until the body is flowing: a second drip is written 100 ms after
        // the first, which the client has had time to receive. Then signal.
        for _ in 0..<500 where server.dripped("slow.bin") < 4_000 { try await Task.sleep(for: .milliseconds(10)) }
        program.signal(signal)
        // On a thread of its own: the wait blocks, and the fixture server needs the pool's.
        let (ending, stdout, stderr): (RunningProgram.Ending, [UInt8], [UInt8]) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: program.finish(within: .seconds(10)))
            }
        }
        let status: Int32 = switch ending {
        case .exited(let code): code
        case .signalled(let signal): 1000 + signal
        }
        return (status, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}
