import Foundation
import Synchronization
import Testing
import XferBatch
import XferFixtures

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
        #expect(last.contains("is still locked by pid \(getpid()) since") && last.hasSuffix(", after waiting 300ms"), "gave up, naming the holder and the wait: \(last)")
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
        // About 40 s for the whole file: the run is killed long before it could finish, even
        // on a loaded machine where this test waits seconds for its turn.
        server.script("/files/slow.bin", [.drip(bytesPerSecond: 50_000)])
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
        // The free space and the promise both shrink by what the first has written so far;
        // when the free space rounds to the same 1.5 MiB, both are given in bytes.
        #expect(run.stderr.range(of: #"no-space: \S+/[ab]\.bin needs (1\.5 MiB|1,572,864 bytes) more, but only [0-9.,]+ ([KM]iB|bytes) is free there \([0-9.]+ [KM]iB of it promised to downloads under way\)"#,
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

    /// A run that could record nothing does not start: exit 4, naming the disk and its
    /// room. Reading the state needs no room, so `status` still shows it.
    @Test func aStateFolderOnAFullDiskStopsTheRunWithExit4WhileStatusStillReadsIt() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 256 << 10) else { return }
        let scratch = try RunCommandTests.Scratch()
        let state = disk.path + "/state"
        func write(_ ids: [String]) throws {
            let jobs = ids.map { #"{"id": "\#($0)", "download": {"url": "data:,\#($0)", "to": "\#($0).txt"}}"# }
            try #"{"version": 1, "jobs": [\#(jobs.joined(separator: ", "))]}"#.write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        }
        try write(["a"])
        #expect(try await CommandRunner.run(["run", scratch.path("m.json"), "--state", state, "-q"]).status == 0)
        RunCommandTests.fill(disk)
        try write(["a", "b"])
        let run = try await CommandRunner.run(["run", scratch.path("m.json"), "--state", state])
        #expect(run.status == 4)
        #expect(run.stderr == "xferbatch: cannot open the state database \(state)/checkpoints.sqlite: the disk is full (0 B free on the file system holding \(state)); free some space and run again\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("b.txt")), "nothing ran")
        let status = try await CommandRunner.run(["status", scratch.path("m.json"), "--state", state])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasSuffix("1 done, 0 partial, 0 failed, 1 pending of 2 jobs\n"), "\(status.stdout)")
    }

    @Test func aStateFolderThatCannotBeCreatedExits4SayingWhyAndHowToMoveIt() async throws {
        let scratch = try RunCommandTests.Scratch()
        try #require(FileManager.default.createFile(atPath: scratch.path("blocker"), contents: Data("x".utf8)))
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "a.txt"}}]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "--state", scratch.path("blocker/state")])
        #expect(result.status == 4)
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

    /// A run ends without tearing its objects down (`ProcessExit`), but not before its last
    /// write: the database closed (SQLite folds its write-ahead log in and removes it) and
    /// every record in it, the journal empty, the lock given up.
    @Test(arguments: [0, 1])
    func aRunThatEndsLeavesItsStateClosedAndCommitted(failing: Int) async throws {
        let scratch = try RunCommandTests.Scratch()
        let bad = failing == 1 ? #", {"id": "c", "download": {"url": "file:///nonexistent/c", "to": "c.txt"}}"# : ""
        try #"{"version": 1, "jobs": [{"id": "a", "download": {"url": "data:,x", "to": "a.txt"}}, {"id": "b", "download": {"url": "data:,y", "to": "b.txt"}}\#(bad)]}"#
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        #expect(result.status == (failing == 1 ? 1 : 0))
        let state = StateFolder(scratch.path(".xferbatch/m.json"))
        #expect(!FileManager.default.fileExists(atPath: state.database + "-wal"))
        #expect((try? Data(contentsOf: URL(fileURLWithPath: state.journal)))?.isEmpty ?? true)
        let records = try SQLiteCheckpointStore(path: state.database).all()
        #expect(records.filter { $0.phase == .done }.map(\.jobID) == ["a", "b"])
        // Taken at once: the run gave it up.
        let lock = try await RunLock.acquire(stateFolder: scratch.path(".xferbatch/m.json"))
        withExtendedLifetime(lock) {}
    }
}
