import Foundation
import Synchronization
import Testing
import XferBatch
import XferFixtures

@Suite("xferbatch status, reset, clean")
struct StateCommandTests {
    @Test func statusResetAndCleanFollowTheStateFolder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-state-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let manifest = folder + "/m.json"
        // `t`: a tar.gz of one file, x.txt, extracted into out/x/.
        let tarball = Self.tarball
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

    /// `clean --outputs` removes the folders a run made for its outputs once they are empty,
    /// and keeps a folder holding anything else, and the output folder itself.
    @Test func cleanOutputsTakesTheFoldersItsFilesLeftEmptyAndNoOther() async throws {
        let scratch = try RunCommandTests.Scratch()
        let manifest = #"{"version": 1, "outputDir": "out", "jobs": [{"id": "a", "download": {"url": "data:,a", "to": "sub/deeper/a.txt"}}, "#
            + #"{"id": "b", "download": {"url": "data:,b", "to": "shared/b.txt"}}]}"#
        try manifest.write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        #expect(try await CommandRunner.run(["run", scratch.path("m.json")]).status == 0)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: scratch.path("out/shared/mine.txt")))
        let clean = try await CommandRunner.run(["clean", scratch.path("m.json"), "--outputs"])
        #expect(clean.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")) == ["shared"], "sub/deeper went with a.txt")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out/shared")) == ["mine.txt"])
    }

    /// An extraction folder holding the user's files is not the job's: the extraction
    /// refused to delete them, and `clean --outputs` keeps them too.
    @Test func cleanOutputsKeepsAnExtractionFolderItsJobNeverFilled() async throws {
        let scratch = try RunCommandTests.Scratch()
        try (#"{"version": 1, "outputDir": "out", "jobs": [{"id": "t", "download": {"url": "data:;base64,\#(Self.tarball)", "to": "t.tgz"}}, "#
            + #"{"id": "x", "extract": {"from": "t", "to": "x/"}}]}"#)
            .write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: scratch.path("out/x"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: scratch.path("out/x/mine.txt")))
        let run = try await CommandRunner.run(["run", scratch.path("m.json")])
        #expect(run.status == 1)
        #expect(run.stdout.contains("foreign-files"), "\(run.stdout)")
        let clean = try await CommandRunner.run(["clean", scratch.path("m.json"), "--outputs"])
        #expect(clean.stdout == "removed \(scratch.path(".xferbatch/m.json")) and 1 output file\n")
        #expect(FileManager.default.contents(atPath: scratch.path("out/x/mine.txt")) == Data("mine".utf8))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/t.tgz")))
    }

    /// A tar.gz of one file, `x.txt`.
    static let tarball = "H4sIALQJA2sC/+3NwQmEMBQE0H+2CitYRGK2HlvQCCnfuKfFu4L43mWGuUz9lFriWkOTU/plc85m/OvHnr9pin6IG2xrmZd2Ge9UuwAAAAAAAAAAAOCBdkkW7OQAKAAA"

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

    /// `clean` is what a full disk calls for: it reads the store without writing to it,
    /// where opening it for writing needs room.
    @Test func cleanEmptiesAStateFolderOnAFullDisk() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 256 << 10) else { return }
        let scratch = try RunCommandTests.Scratch()
        try Self.manifest(scratch, jobs: [Self.smallJob])
        let state = disk.path + "/state"
        #expect(try await CommandRunner.run(["run", scratch.path("m.json"), "-q", "--state", state]).status == 0)
        RunCommandTests.fill(disk)
        let clean = try await CommandRunner.run(["clean", scratch.path("m.json"), "--state", state, "--outputs"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/small.txt")), "the recorded output went too")
    }

    /// A full disk is often full of partials: `reset` deletes the job's before it opens the
    /// store for writing, which needs room, and then forgets the job.
    @Test func resetOnAFullDiskDeletesThePartialFirst() async throws {
        guard let disk = RunCommandTests.smallDisk(bytes: 4 << 20) else { return }
        let server = try await FixtureServer.start()
        server.addFile("big.bin", [UInt8](repeating: 9, count: 2 << 20))
        server.script("/files/big.bin", [.closeAfter(bytes: 300_000)])
        let manifest = disk.path + "/m.json"
        try #"{"version": 1, "outputDir": "out", "jobs": [\#(Self.bigJob(server, to: "big.bin"))]}"#
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        #expect(try await CommandRunner.run(["run", manifest, "-q"]).status == 1)
        await server.stop()
        let partial = disk.path + "/out/big.bin.xferpart"
        #expect(FileManager.default.fileExists(atPath: partial))
        RunCommandTests.fill(disk)
        let reset = try await CommandRunner.run(["reset", manifest, "big"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout == "reset 1 job; deleted 1 partial file\n")
        #expect(!FileManager.default.fileExists(atPath: partial))
        let status = try await CommandRunner.run(["status", manifest])
        #expect(status.stdout.hasSuffix("0 done, 0 partial, 0 failed, 1 pending of 1 jobs\n"), "\(status.stdout)")
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
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "no partial, no final file: the folder made for them went too")
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
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "no partial, no final file: the folder made for them went too")
    }

    /// The manifest gives no `size`: the server's Content-Length is recorded with the
    /// partial, so `status` gives a percentage and `plan` what the resume still needs.
    @Test func aPartialShowsHowMuchOfTheSizeTheServerAnnouncedItHolds() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        _ = try await Self.leaveAPartial(scratch, server)
        await server.stop()
        let status = try await CommandRunner.run(["status", scratch.path("m.json")])
        #expect(status.stdout.range(of: #"partial  big +14%  "#, options: .regularExpression) != nil, "300,000 of 2,097,152 bytes: \(status.stdout)")
        let json = try await CommandRunner.run(["status", scratch.path("m.json"), "--json"])
        #expect(json.stdout.contains(#""expectedBytes": 2097152"#))
        let plan = try await CommandRunner.run(["plan", scratch.path("m.json")])
        #expect(plan.stdout.contains("run: resume at 293 KiB of 2 MiB (14%)"), "\(plan.stdout)")
        #expect(plan.stdout.contains("disk: 1.7 MiB of known sizes to download"), "the rest of the file, not nothing: \(plan.stdout)")
    }

    /// A link planted in place of a partial (to a file larger than the part downloaded) is
    /// no partial: `plan` and `status` do not count the file it leads to, and the run starts
    /// over at once, without spending an attempt on the link, and leaves that file as it is.
    @Test func aLinkInPlaceOfAPartialIsNotTakenForIt() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        let partial = try await Self.leaveAPartial(scratch, server)
        let victim = scratch.path("victim")
        try Data(repeating: 9, count: 1_000_000).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.removeItem(atPath: partial)
        try FileManager.default.createSymbolicLink(atPath: partial, withDestinationPath: victim)
        let plan = try await CommandRunner.run(["plan", scratch.path("m.json")])
        #expect(!plan.stdout.contains("resume at"), "\(plan.stdout)")
        #expect(plan.stdout.contains("run: download"), "\(plan.stdout)")
        let status = try await CommandRunner.run(["status", scratch.path("m.json")])
        #expect(status.stdout.contains("0 partial"), "\(status.stdout)")
        let before = server.requests(to: "/files/big.bin").count
        let run = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        await server.stop()
        #expect(run.status == 0, "one attempt is enough: \(run.stdout)")
        let requests = server.requests(to: "/files/big.bin").dropFirst(before)
        #expect(requests.count == 1)
        #expect(requests.first?.header("Range") == nil, "from byte 0")
        #expect(FileManager.default.contents(atPath: victim) == Data(repeating: 9, count: 1_000_000))
        #expect(FileManager.default.contents(atPath: scratch.path("out/big.bin"))?.count == 2 << 20)
    }

    /// A server that answers a request for the whole file with a part of it (206, `bytes
    /// 0-1499999/2097152`): the part was recorded as the whole file, done. Now it is kept
    /// as a partial, the job fails saying how far it got, and the next run asks for the rest.
    @Test func aPartOfTheFileIsKeptAsAPartialAndTheNextRunAsksForTheRest() async throws {
        let scratch = try RunCommandTests.Scratch()
        let server = try await FixtureServer.start()
        let content = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        server.addFile("big.bin", content)
        let part = 1_500_000
        server.script("/files/big.bin", [.untrueHeaders(206, headers: ["Content-Range": "bytes 0-\(part - 1)/\(content.count)", "Content-Length": "\(part)",
                                                                   "ETag": FixtureFile(bytes: content).etag], body: Array(content[..<part]))])
        try Self.manifest(scratch, jobs: [Self.bigJob(server, to: "big.bin")])
        let failed = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("failed  big: part-of-the-file: the server sent the file only up to byte 1500000 of 2097152 (206 Partial Content)"),
                "\(failed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/big.bin")))
        let again = try await CommandRunner.run(["run", scratch.path("m.json"), "-q"])
        await server.stop()
        #expect(again.status == 0, "\(again.stdout)")
        #expect(server.requests(to: "/files/big.bin").map { $0.header("Range") } == [nil, "bytes=\(part)-"])
        #expect(FileManager.default.contents(atPath: scratch.path("out/big.bin")) == Data(content))
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
