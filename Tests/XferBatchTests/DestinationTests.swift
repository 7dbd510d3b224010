import Foundation
import Synchronization
import Testing
@testable import XferBatch
import XferFixtures

/// What a run does when the path it would write already holds something that is not a
/// file, or a file it must not replace: the manifest, another job's destination.
@Suite("Destinations")
struct DestinationTests {
    typealias E = ExecutorTesting

    @Test func aDestinationThatIsAFolderFailsTheJobBeforeAnyRequest() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try FileManager.default.createDirectory(atPath: t.folder.path + "/a.bin", withIntermediateDirectories: false)
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")))
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason == "not-a-file: \(t.folder.path)/a.bin is a folder; end \"to\" with / to download into it")
        #expect(t.transport.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/a.bin.xferpart"))
    }

    @Test func aNamedPipeAtTheDestinationIsLeftInPlaceAndTheJobFails() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let pipe = t.folder.path + "/a.bin"
        #expect(mkfifo(pipe, 0o644) == 0)
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")))
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason?.contains("a.bin is a named pipe: a finished file is renamed into place, which would replace it") == true)
        var info = stat()
        #expect(lstat(pipe, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "still a pipe")
        #expect(t.transport.requests.isEmpty)
    }

    @Test func aSymbolicLinkAtTheDestinationIsReplacedAndItsTargetKept() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let target = t.folder.path + "/elsewhere"
        try Data([9]).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: t.folder.path + "/a.bin", withDestinationPath: target)
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")))
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([1, 2, 3]))
        #expect(FileManager.default.contents(atPath: target) == Data([9]))
    }

    @Test func anArchiveWhoseDestinationIsAFolderFailsWithoutBuilding() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try FileManager.default.createDirectory(atPath: t.folder.path + "/all.zip", withIntermediateDirectories: false)
        t.transport.script("https://x.org/a", [.body([1, 2, 3])])
        let jobs = E.download("a", "https://x.org/a") + #", {"id": "z", "archive": {"from": ["a"], "to": "all.zip"}}"#
        let result = await t.run(try t.plan(jobs: jobs))
        #expect(result.state("a") == .succeeded)
        #expect(result.job("z")?.lifecycle.reason?.contains("all.zip is a folder; name the archive file") == true)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/all.zip.xferpart"))
    }

    @Test(arguments: [false, true])
    func aFileTheServerNamesIsNeverWrittenOverAnotherJobsDestination(namedFirst: Bool) async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body([1])])
        t.transport.script("https://x.org/files/a.bin", [.body([2])])
        // Either order (one at a time, by priority): the destination is the other job's
        // from the start, not once it is written.
        let jobs = E.download("a", "https://x.org/a", to: "in/a.bin", extra: #", "priority": \#(namedFirst ? 0 : 1)"#)
            + "," + E.download("named", "https://x.org/files/a.bin", to: "in/", extra: #", "priority": \#(namedFirst ? 1 : 0)"#)
        let result = await t.run(try t.plan(jobs: jobs, limits: #"{"concurrency": 1}"#))
        #expect(t.startOrder == (namedFirst ? ["named", "a"] : ["a", "named"]))
        #expect(result.state("a") == .succeeded)
        #expect(result.state("named") == .failed)
        #expect(result.job("named")?.lifecycle.reason == "name-taken: the server named the file a.bin, which job \"a\" also writes")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/in/a.bin") == Data([1]))
    }

    @Test func aFileTheServerNamesAfterTheManifestLeavesTheManifestAlone() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let manifest = t.folder.path + "/m.json"  // ExecutorTesting plans "m.json" in its folder
        try Data("{}".utf8).write(to: URL(fileURLWithPath: manifest))
        t.transport.script("https://x.org/m.json", [.body([1, 2, 3])])
        let result = await t.run(try t.plan(jobs: E.download("m", "https://x.org/m.json", to: "./")))
        #expect(result.job("m")?.lifecycle.reason == "name-taken: the server named the file m.json, which is the manifest")
        #expect(FileManager.default.contents(atPath: manifest) == Data("{}".utf8))
    }

    /// A folder, or a pipe (`producer | xferbatch run` with an upload from `/dev/stdin`:
    /// no size to announce, so 0 bytes were sent as the whole body and the upload
    /// recorded as done), fails the job before any request, and `plan` says so.
    /// (Bounded: without the check, hashing a pipe waits for a writer forever.)
    @Test(.timeLimit(.minutes(1)), arguments: ["folder", "pipe"])
    func anUploadOfAFolderOrAPipeFailsNamingItAndPlanSaysSo(source: String) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let path = t.folder.path + "/" + source
        let (code, message): (String, String)
        if source == "folder" {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            (code, message) = ("EISDIR", "the upload source \(path) is a folder; send a file (an archive job can pack the folder)")
        } else {
            #expect(mkfifo(path, 0o600) == 0)
            (code, message) = ("not-a-file", "the upload source \(path) is a named pipe, not a file: its size cannot be announced before sending, "
                + "nor can it be read again for a retry; write it to a file first")
        }
        let plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(path)", "url": "https://x.org/u"}}"#)
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == [.fails(reason: message)])
        let result = await t.run(plan)
        #expect(result.job("u")?.lifecycle.reason == "\(code): \(message)")
        #expect(t.transport.requests.isEmpty)
    }

    /// A name the server chooses (`to` ending in `/`) never replaces a file this job did
    /// not write: the user's own `notes.txt` was overwritten with the server's. As
    /// `curl -OJ`, the job fails instead; the file it wrote itself is replaced on refresh.
    @Test func aFileTheServerNamesNeverReplacesOneThisJobDidNotWrite() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let named = ["content-disposition": #"attachment; filename="notes.txt""#]
        t.transport.script("https://x.org/get", [.body(Array("server".utf8), headers: named)])
        try Data("mine".utf8).write(to: URL(fileURLWithPath: t.folder.path + "/notes.txt"))
        let plan = try t.plan(jobs: E.download("n", "https://x.org/get", to: "./", inner: #", "refresh": "always""#))
        let refused = await t.run(plan, store: store)
        #expect(refused.job("n")?.lifecycle.reason
                == "name-taken: the server named the file notes.txt, and \(t.folder.path)/notes.txt is already there, not written by this job; move it away, or give \"to\" a file name")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/notes.txt") == Data("mine".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path) == ["notes.txt"], "no partial left")
        try FileManager.default.removeItem(atPath: t.folder.path + "/notes.txt")
        #expect(await t.run(plan, store: store).state("n") == .succeeded)
        t.transport.script("https://x.org/get", [.body(Array("newer".utf8), headers: named)])
        #expect(await t.run(plan, store: store).state("n") == .succeeded, "its own file, fetched again")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/notes.txt") == Data("newer".utf8))
    }

    /// The output folder removed during a run (a cleanup job, `rm -rf out`): a download
    /// in flight lost its partial with it and failed for good at the rename (ENOENT,
    /// local); now it is downloaded again into the folder made anew.
    @Test func aFolderRemovedUnderADownloadIsMadeAgainAndTheFileDownloadedAgain() async throws {
        let t = try E(holdFor: .milliseconds(300))
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body(Array("aaa".utf8))])
        let executor = t.executor(try t.plan(jobs: E.download("a", "https://x.org/a", to: "x/a.bin")))
        let run = Task { await executor.run() }
        for await url in t.transport.starts where url.hasSuffix("/a") { break }
        try FileManager.default.removeItem(atPath: t.folder.path + "/x")
        let result = await run.value
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/x/a.bin") == Data("aaa".utf8))
        let first = try #require(result.job("a")?.lifecycle.attempts.first?.failure)
        #expect(first.kind == .transient && first.message.contains("/x was removed while"), "\(first)")
    }

    /// Removed between two downloads into it, the folder this run had made was taken to
    /// be there: every later download into it failed (`cannot create …xferpart`).
    @Test func aFolderRemovedBetweenDownloadsIsMadeAgainForTheNext() async throws {
        let t = try E(holdFor: .milliseconds(300))
        defer { t.cleanUp() }
        for name in ["a", "slow", "b"] { t.transport.script("https://x.org/\(name)", [.body(Array(name.utf8))]) }
        let plan = try t.plan(jobs: [E.download("a", "https://x.org/a", to: "x/a.bin"),
                                     E.download("slow", "https://x.org/slow", to: "y/slow.bin", extra: #", "dependsOn": ["a"]"#),
                                     E.download("b", "https://x.org/b", to: "x/b.bin", extra: #", "dependsOn": ["slow"]"#)].joined(separator: ","))
        let executor = t.executor(plan)
        let run = Task { await executor.run() }
        for await url in t.transport.starts where url.hasSuffix("/slow") { break }  // a is done: x/ was made
        try FileManager.default.removeItem(atPath: t.folder.path + "/x")
        let result = await run.value
        #expect(result.state("b") == .succeeded)
        #expect(result.job("b")?.lifecycle.attempts.count == 1)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/x/b.bin") == Data("b".utf8))
    }

    /// A missing source no job writes is sure to fail the run; one a job writes (a
    /// download, an archive, a file an extraction or a download into a folder may put
    /// there) appears in time. `plan` said "upload" for both.
    @Test func planSaysAnUploadWouldFailOnlyWhenNoJobWritesItsMissingSource() async throws {
        let t = try E()
        defer { t.cleanUp() }
        var plan = try t.plan(jobs: [
            E.download("d", "https://x.org/d.bin", to: "d.bin"), E.download("f", "https://x.org/f", to: "in/"),
            #"{"id": "u1", "dependsOn": ["d"], "upload": {"from": "d.bin", "url": "https://x.org/u1"}}"#,
            #"{"id": "u2", "dependsOn": ["f"], "upload": {"from": "in/named-by-server", "url": "https://x.org/u2"}}"#,
            #"{"id": "u3", "dependsOn": ["d"], "upload": {"url": "https://x.org/u3", "multipart": {"files": [{"field": "a", "path": "d.bin"}, {"field": "b", "path": "nobody.txt"}]}}}"#,
        ].joined(separator: ", "))
        let missing = t.folder.path + "/nobody.txt"
        plan.forecast = RunForecast(plan: plan, store: InMemoryCheckpointStore())
        #expect(plan.forecast?.actions
            == [.transfer, .transfer, .transfer, .transfer,
                .fails(reason: "the upload source \(missing) is missing or unreadable, and no job of this manifest writes it")])
        #expect(plan.text().hasSuffix("\n3 warnings; 1 job would fail (see \"fails:\"). Nothing was transferred: this is a dry run.\n"))
    }

    /// `"from": "logs/*.log"` is one file of that name, which is missing: the message says
    /// that wildcards are not expanded, and what packs a glob's files.
    @Test func anUploadSourceWithWildcardsThatIsMissingSaysTheyAreNotExpanded() {
        let problem = JobRunner.sourceProblem("/nowhere/logs/*.log")
        #expect(problem?.message == "the upload source /nowhere/logs/*.log is missing or unreadable; an upload sends the one file it names, "
                + "wildcards are not expanded (an archive job packs a glob's files into one)")
        #expect(JobRunner.sourceProblem("/nowhere/app.log")?.message == "the upload source /nowhere/app.log is missing or unreadable")
    }

    /// libcurl opens a `file:` URL's path on the engine's thread: a named pipe nobody writes
    /// blocked every transfer of the run, and Ctrl-C, forever; `/dev/zero` never ends. A
    /// pipe, a device or a folder fails its job before anything starts; the others go on.
    @Test func aFileURLNamingAPipeADeviceOrAFolderFailsItsJobAndPlanSaysSo() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let pipe = t.folder.path + "/pipe"
        #expect(mkfifo(pipe, 0o600) == 0)
        try FileManager.default.createDirectory(atPath: t.folder.path + "/folder", withIntermediateDirectories: true)
        t.transport.script("https://x.org/ok", [.body([1, 2, 3])])
        _ = FileManager.default.createFile(atPath: t.folder.path + "/report.txt", contents: Data("r".utf8))
        let plan = try t.plan(jobs: [
            E.download("p", "file://\(pipe)", to: "p.bin"), E.download("z", "file:///dev/zero", to: "z.bin"),
            E.download("f", "file://\(t.folder.path)/folder", to: "f.bin"),
            #"{"id": "u", "upload": {"from": "report.txt", "url": "file://\#(pipe)"}}"#, E.download("ok", "https://x.org/ok", to: "ok.bin"),
        ].joined(separator: ", "))
        let reasons = [
            "\(pipe) (the file: URL) is a named pipe, not a file: opening it may wait forever and reading it may never end; write what it gives to a file first",
            "/dev/zero (the file: URL) is a character device, not a file: opening it may wait forever and reading it may never end; write what it gives to a file first",
            "\(t.folder.path)/folder (the file: URL) is a folder; a transfer reads or writes one file",
        ]
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == (reasons + [reasons[0]]).map { .fails(reason: $0) } + [.transfer])
        let result = await t.run(plan)
        #expect(["p", "z", "f", "u"].map { result.job($0)?.lifecycle.reason } == (reasons + [reasons[0]]).map { "not-a-file: " + $0 })
        #expect(result.state("ok") == .succeeded)
    }

    /// A named pipe at a download's destination, with the manifest's `sha256`: the run hashed
    /// it to see whether it was the download already, and waited in `open` forever, on the
    /// engine's thread, before any transfer began. It is now no file to hash; the job then
    /// fails on its destination (`plan` said so already). (On a thread with a time limit,
    /// so that a wait fails this test instead of holding up the suite.)
    @Test func aNamedPipeIsNotWaitedOnForItsSHA256() throws {
        let t = try E()
        defer { t.cleanUp() }
        let pipe = t.folder.path + "/h.bin"
        #expect(mkfifo(pipe, 0o600) == 0)
        let outcome = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do { _ = try FileDigest.sha256(ofFileAt: pipe) } catch { outcome.withLock { $0 = "\(error)" } }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 30) == .success, "the hash returned")
        #expect(outcome.withLock { $0 } == "not-a-file: \(pipe) is a named pipe, not a file: it has no SHA-256 to check")
    }

    @Test func planSaysWhichJobsWouldFailOnTheirDestination() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try FileManager.default.createDirectory(atPath: t.folder.path + "/a.bin", withIntermediateDirectories: false)
        #expect(mkfifo(t.folder.path + "/b.bin", 0o644) == 0)
        try Data("x".utf8).write(to: t.folder.appendingPathComponent("blocker"))
        let plan = try t.plan(jobs: [E.download("a", "https://x.org/a"), E.download("b", "https://x.org/b"), E.download("c", "https://x.org/c"),
                                     E.download("d", "https://x.org/d", to: "blocker/sub/d.bin")].joined(separator: ","))
        let forecast = RunForecast(plan: plan, store: InMemoryCheckpointStore())
        #expect(forecast.actions == [
            .fails(reason: "\(t.folder.path)/a.bin is a folder; end \"to\" with / to download into it"),
            .fails(reason: "\(t.folder.path)/b.bin is a named pipe: a finished file is renamed into place, which would replace it; choose another destination"),
            .transfer,
            .fails(reason: "cannot create the folder \(t.folder.path)/blocker/sub: \(t.folder.path)/blocker is a file, not a folder"),
        ])
        // And the run says the same of it.
        t.transport.script("https://x.org/d", [.body([1])])
        #expect(await t.run(plan).job("d")?.lifecycle.reason == "mkdir: cannot create the folder \(t.folder.path)/blocker/sub: \(t.folder.path)/blocker is a file, not a folder")
    }
}
