import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

@Suite("Checkpoints: re-runs and resume")
struct CheckpointRunTests {
    typealias E = ExecutorTesting

    @Test func aFinishedManifestRerunsWithNothingTransferred() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("aaa".utf8))])
        let source = t.folder.appendingPathComponent("up.txt").path
        _ = FileManager.default.createFile(atPath: source, contents: Data("up".utf8))
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a") + "," + #"{"id": "u", "upload": {"from": "\#(source)", "url": "https://x.org/u"}}"#)
        t.transport.script("https://x.org/u", [.body([])])
        let first = await t.run(plan, store: store)
        #expect(first.summary.succeeded == 2)
        let requests = t.transport.requests.count
        let second = await t.run(plan, store: store)
        #expect(second.summary.upToDate == 2)
        #expect(second.summary.succeeded == 0)
        #expect(second.exitStatus == .success)
        #expect(t.transport.requests.count == requests, "nothing was transferred")
    }

    /// A nightly log says what was done: an up-to-date job gets its `ok … is up to date`
    /// line, not a `start … (attempt 1)` before it as if it were fetched. An attempt that
    /// fails before it starts its work is still announced, so its failure follows a start.
    @Test func onlyJobsThatDoSomethingAreAnnouncedAsStarted() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("aaa".utf8))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a") + ","
                                  + #"{"id": "u", "upload": {"from": "\#(t.folder.path)/missing.txt", "url": "https://x.org/u"}}"#)
        func started() -> [String] { t.events.events.compactMap { if case .jobStarted(let id, _, _, _, _) = $0 { id } else { nil } } }
        _ = await t.run(plan, store: store)
        #expect(started().sorted() == ["a", "u"])
        let second = await t.run(plan, store: store)
        #expect(second.summary.upToDate == 1)
        #expect(second.state("u") == .failed)
        #expect(started().dropFirst(2) == ["u"], "the failed upload again, the up-to-date download not")
        let last = t.events.events.suffix(4).map { event -> String in
            switch event {
            case .jobStarted(let id, _, _, _, _): "start \(id)"
            case .jobUpToDate(let id, _): "up to date \(id)"
            case .jobFailed(let id, _, _): "failed \(id)"
            default: "other"
            }
        }
        #expect(last.contains("up to date a"))
        let start = try #require(last.firstIndex(of: "start u"))
        let failure = try #require(last.firstIndex(of: "failed u"))
        #expect(start < failure)
    }

    @Test func aChangedUploadSourceOrForceSendsAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let (plan, source) = try Self.oneUpload(t)
        _ = await t.run(plan, store: store)
        _ = FileManager.default.createFile(atPath: source, contents: Data("two".utf8))
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        #expect(await t.run(plan, store: store).summary.upToDate == 1)
        #expect(await t.run(plan, store: store, force: true).summary.succeeded == 1)
    }

    @Test func anEditedJobStartsFresh() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body([1])])
        t.transport.script("https://x.org/b", [.body([2])])
        _ = await t.run(try t.plan(jobs: E.download("j", "https://x.org/a")), store: store)
        let edited = await t.run(try t.plan(jobs: E.download("j", "https://x.org/b")), store: store)
        #expect(edited.summary.succeeded == 1)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/j.bin") == Data([2]))
    }

    /// A plan for one download of `content` from https://x.org/a, with a partial file of
    /// `partial` bytes and a running record (etag "v1") from `boot`.
    static func plantPartial(_ t: E, _ store: InMemoryCheckpointStore, content: [UInt8], partial: [UInt8], boot: String?,
                             durableBytes: Int64? = nil) throws -> Plan {
        t.transport.script("https://x.org/a", [.body(content)])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"))
        let path = t.folder.path + "/a.bin.xferpart"
        _ = FileManager.default.createFile(atPath: path, contents: Data(partial))
        try store.save(JobCheckpoint(jobID: "a", fingerprint: JobFingerprint.of(plan.jobs[0]), phase: .running, etag: "\"v1\"",
                                     partialPath: path, bootID: boot, durableBytes: durableBytes))
        return plan
    }

    @Test func aPartialFromThisBootResumesWithRangeAndIfRange() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let result = try await Self.resumeFourOfTen(t, store)
        let request = try #require(t.transport.requests.first)
        #expect(request.resumeFrom == 4)
        #expect(request.ifRange == "\"v1\"")
        #expect(result.state("a") == .succeeded)
        #expect(result.job("a")?.result?.bytes == 10)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data("0123456789".utf8))
        #expect(try store.load("a")?.phase == .done)
    }

    /// Runs a download of "0123456789" whose first 4 bytes an earlier run of this boot left.
    static func resumeFourOfTen(_ t: E, _ store: InMemoryCheckpointStore) async throws -> RunResult {
        let content = Array("0123456789".utf8)
        let plan = try plantPartial(t, store, content: content, partial: Array(content[..<4]), boot: BootID.current)
        return await t.run(plan, store: store)
    }

    /// A resumed download says so as it starts and ends, and counts only what it fetched:
    /// the run's total (and speed) are of those bytes, not of the whole file.
    @Test func aResumedDownloadSaysWhereItResumedAndCountsOnlyTheBytesItFetched() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let result = try await Self.resumeFourOfTen(t, InMemoryCheckpointStore())
        #expect(result.job("a")?.result?.bytes == 10)
        #expect(result.job("a")?.result?.resumedFrom == 4)
        #expect(result.summary.bytes == 6)
        let told = t.events.events.compactMap { event -> String? in
            switch event {
            case .jobStarted(let id, _, _, _, let offset): "\(id) started at \(offset)"
            case .jobSucceeded(let id, let bytes, _, _, _, let resumedFrom): "\(id) has \(bytes), \(resumedFrom) from before"
            default: nil
            }
        }
        #expect(told == ["a started at 4", "a has 10, 4 from before"])
    }

    /// A 304 moves no file: the report gives its job no speed. It gave the file's size over
    /// the request's time (50,000,000,000 bytes/s for 300 MB answered in 6 ms). Every reading
    /// of this clock is a second later, so the attempt takes time without a real wait.
    @Test func aRefreshAnsweredNotModifiedHasNoSpeedInTheReport() async throws {
        final class TickingClock: ExecutionClock {
            private let time = Mutex(Duration.zero)
            func now() -> Duration { time.withLock { $0 += .seconds(1); return $0 } }
            func sleep(for duration: Duration) async throws { try Task.checkCancellation() }
        }
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array(repeating: 7, count: 1000), headers: ["etag": "\"v1\""]), .status(304)])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "refresh": "conditional""#))
        _ = await t.run(plan, store: store)
        let result = await Executor(plan: plan, transport: t.transport, clock: TickingClock(), events: t.events, environment: [:],
                                    options: .init(checkpoints: store), random: { 0.5 }).run()
        #expect(result.job("a")?.result?.httpStatus == 304)
        let json = RunReport(result: result, plan: plan, manifestFingerprint: "", startedAt: Date()).json()
        let report = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]
        let job = try #require((report?["jobs"] as? [[String: Any]])?.first)
        #expect((job["durationSeconds"] as? Double ?? 0) > 0)
        #expect(job["bytesPerSecond"] is NSNull)
    }

    @Test func aPartialThatIsAlreadyCompleteIsFinishedWithoutDownloadingItAgain() async throws {
        // A kill between the last byte and the rename leaves the whole file in the partial;
        // the server answers the resume with 416 `bytes */10`.
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let content = Array("0123456789".utf8)
        let plan = try Self.plantPartial(t, store, content: content, partial: content, boot: BootID.current)
        let result = await t.run(plan, store: store)
        #expect(t.transport.requests.map(\.resumeFrom) == [10])
        #expect(result.state("a") == .succeeded)
        #expect(result.job("a")?.result?.bytes == 10)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data(content))
        #expect(try store.load("a")?.sha256 == FileDigest.sha256(ofText: "0123456789"))
    }

    /// The finished record is written before the rename; when the rename fails, the
    /// record says so and keeps the complete partial, which the next run moves into place.
    @Test func aDownloadThatCannotBeMovedIntoPlaceKeepsItsCompletePartialForTheNextRun() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let content = Array("0123456789".utf8)
        t.transport.script("https://x.org/a", [.body(content, headers: ["etag": "\"v1\""])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"))
        let final = t.folder.path + "/a.bin"
        // A folder appears at the destination during the first run's download (one there
        // before fails the job at once; see DestinationTests).
        let firstRun = Slot(true)
        let store = FinishWatchingStore { _ in
            guard firstRun.update({ first in defer { first = false }; return first }) else { return }
            try? FileManager.default.createDirectory(atPath: final + "/inside", withIntermediateDirectories: true)
        }
        let blocked = await t.run(plan, store: store)
        #expect(blocked.state("a") == .failed)
        let record = try #require(try store.load("a"))
        #expect(record.phase == .failed)
        #expect(record.partialPath == final + ".xferpart")
        #expect(record.lastError?.hasPrefix("EISDIR: cannot move the download into place at \(final)") == true)
        try FileManager.default.removeItem(atPath: final)
        let finished = await t.run(plan, store: store)
        #expect(finished.state("a") == .succeeded)
        #expect(t.transport.requests.map(\.resumeFrom) == [nil, 10], "moved into place, not downloaded again")
        #expect(FileManager.default.contents(atPath: final) == Data(content))
        #expect(try store.load("a")?.phase == .done)
    }

    @Test func aPartialTheServerCannotContinueIsDiscardedAndTheRetryStartsFromZero() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let content = Array("0123456789".utf8)
        let plan = try Self.plantPartial(t, store, content: content, partial: content + Array("AB".utf8), boot: BootID.current)
        let result = await t.run(plan, store: store)
        #expect(t.transport.requests.map(\.resumeFrom) == [12, nil])
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data(content))
    }

    /// FTP and SFTP refuse a resume when the file's time changed (`remote-changed`), or
    /// when it is now shorter than the partial (libcurl's codes), and an HTTP server may
    /// answer a range with bytes from elsewhere (`bad-content-range`): the partial cannot be
    /// continued, so it goes, and the retry fetches the file whole. It was kept, and every
    /// later run failed the same way.
    @Test(arguments: [TransferError.remoteFileChanged, "CURLE_BAD_DOWNLOAD_RESUME", TransferError.badContentRange])
    func aPartialThatCannotBeContinuedIsDiscardedAndTheRetryStartsFromZero(code: String) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let content = Array("0123456789".utf8)
        let plan = try Self.plantPartial(t, store, content: content, partial: Array(content[..<4]), boot: BootID.current)
        let kind: TransferError.Kind = code == TransferError.remoteFileChanged ? .transient : .permanent
        t.transport.script("https://x.org/a", [.failure(TransferError(kind: kind, code: code, message: "changed")), .body(content)])
        let result = await t.run(plan, store: store)
        #expect(t.transport.requests.map(\.resumeFrom) == [4, nil])
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data(content))
    }

    @Test func aPartialWithoutAValidatorOrFromAnotherBootStartsOver() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let plan = try Self.plantPartial(t, store, content: [1, 2, 3], partial: [9, 9], boot: "another-boot")
        _ = await t.run(plan, store: store)
        #expect(t.transport.requests.first?.resumeFrom == nil, "bytes of unknown provenance are never appended to")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([1, 2, 3]))
    }

    @Test func afterARebootOnlyTheFlushedOffsetIsTrustedAndTheRestIsCutOff() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let content = Array("0123456789".utf8)
        // 4 bytes were flushed; what follows them is what a power loss can leave: zeros.
        let plan = try Self.plantPartial(t, store, content: content, partial: Array(content[..<4]) + [0, 0, 0],
                                         boot: "another-boot", durableBytes: 4)
        let result = await t.run(plan, store: store)
        #expect(t.transport.requests.first?.resumeFrom == 4)
        #expect(result.state("a") == .succeeded)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data(content))
    }

    @Test func aFlushedOffsetBeyondThePartialsLengthIsNotTrusted() {
        let download = Download(url: try! TransferURL(parsing: "https://x.org/a"), to: "/out/a.bin")
        let previous = JobCheckpoint(jobID: "a", fingerprint: "f", phase: .running, etag: "\"v1\"", partialPath: "/out/a.bin.xferpart",
                                     bootID: "another-boot", durableBytes: 100)
        #expect(DownloadStart.decide(download, partialPath: "/out/a.bin.xferpart", previous: previous, boot: "this-boot",
                                     file: { _ in FileStamp(size: 50, modified: 1_000_000_000) }) == .fresh)
        #expect(DownloadStart.decide(download, partialPath: "/out/a.bin.xferpart", previous: previous, boot: "this-boot",
                                     file: { _ in FileStamp(size: 150, modified: 1_000_000_000) }) == .resume(offset: 100, validator: "\"v1\""))
    }

    /// A weak ETag may not be sent as If-Range (a server must then answer with the whole
    /// file): Last-Modified is, and with neither usable the partial is not resumed.
    @Test func aWeakETagIsNoResumeValidatorButLastModifiedIs() {
        let download = Download(url: try! TransferURL(parsing: "https://x.org/a"), to: "/out/a.bin")
        var previous = JobCheckpoint(jobID: "a", fingerprint: "f", phase: .running, etag: #"W/"5-abc""#,
                                     lastModified: "Sat, 12 Sep 2020 12:26:40 GMT", partialPath: "/out/a.bin.xferpart", bootID: "b")
        func decide() -> DownloadStart {
            DownloadStart.decide(download, partialPath: "/out/a.bin.xferpart", previous: previous, boot: "b",
                                 file: { _ in FileStamp(size: 50, modified: 1_000_000_000) })
        }
        #expect(decide() == .resume(offset: 50, validator: "Sat, 12 Sep 2020 12:26:40 GMT"))
        previous.lastModified = nil
        #expect(decide() == .fresh)
        previous.etag = #""5-abc""#
        #expect(decide() == .resume(offset: 50, validator: #""5-abc""#))
    }

    @Test func aFinishedFileWhoseModificationTimeChangedIsCheckedBeforeItIsTrusted() {
        let download = Download(url: try! TransferURL(parsing: "https://x.org/a"), to: "/out/a.bin")
        var done = JobCheckpoint(jobID: "a", fingerprint: "f", phase: .done, bytes: 3, finalPath: "/out/a.bin", sha256: "ab",
                                 finalModified: 100_500_000_000)
        func decide(_ stamp: FileStamp) -> DownloadStart {
            DownloadStart.decide(download, partialPath: "/out/a.bin.xferpart", previous: done, boot: "b", file: { _ in stamp })
        }
        #expect(decide(FileStamp(size: 3, modified: 100_500_000_000)) == .upToDate(finalPath: "/out/a.bin"))
        #expect(decide(FileStamp(size: 3, modified: 100_600_000_000)) == .changed(finalPath: "/out/a.bin"))
        #expect(decide(FileStamp(size: 4, modified: 100_500_000_000)) == .fresh, "another size needs no hash to tell")
        done.finalModified = nil
        #expect(decide(FileStamp(size: 3, modified: 100_600_000_000)) == .upToDate(finalPath: "/out/a.bin"), "an older record: by size")
    }

    @Test func aFinishedFileEditedInPlaceIsDownloadedAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("abc".utf8)), .body(Array("abc".utf8))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"))
        _ = await t.run(plan, store: store)
        let file = t.folder.path + "/a.bin"
        try Data("abd".utf8).write(to: URL(fileURLWithPath: file))  // same size, other bytes
        // Set, not left to the clock: a write within the file system's time tick would keep it.
        try Self.setModificationTime(of: file, seconds: 2_000)
        let plan2 = try t.plan(jobs: E.download("a", "https://x.org/a"))
        #expect(RunForecast(plan: plan2, store: store).actions == [.verify(path: file)])
        let again = await t.run(plan2, store: store)
        #expect(again.summary.succeeded == 1)
        #expect(t.transport.requests.count == 2)
        #expect(FileManager.default.contents(atPath: file) == Data("abc".utf8))
        #expect(try store.load("a")?.finalModified == FileStamp.of(file)?.modified)
    }

    @Test func anEditedFileWhoseNewDownloadFailsIsNoLongerRecordedAsDone() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("abc".utf8)), .failure(Self.http(404))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"))
        _ = await t.run(plan, store: store)
        let file = t.folder.path + "/a.bin"
        try Data("abd".utf8).write(to: URL(fileURLWithPath: file))
        try Self.setModificationTime(of: file, seconds: 2_000)
        let failed = await t.run(plan, store: store)
        #expect(failed.state("a") == .failed)
        let record = try #require(try store.load("a"))
        #expect(record.phase != .done, "the file in place is not the download")
        #expect(record.lastError?.contains("404") == true)
    }

    @Test func aFinishedFileOnlyTouchedStaysUpToDateAndItsNewTimeIsRecorded() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("abc".utf8))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"))
        _ = await t.run(plan, store: store)
        let file = t.folder.path + "/a.bin"
        try Self.setModificationTime(of: file, seconds: 1_000)
        let touched = await t.run(plan, store: store)
        #expect(touched.summary.upToDate == 1)
        #expect(t.transport.requests.count == 1, "its SHA-256 is the recorded one: nothing is transferred")
        #expect(try store.load("a")?.finalModified == 1_000_000_000_000)
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: file)], "checked once, not on every run")
    }

    static func setModificationTime(of path: String, seconds: Int) throws {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    /// A server that sends neither ETag nor Last-Modified leaves nothing to ask "changed
    /// since?" with: each run downloads the file whole, which `plan` now says.
    @Test func planWarnsWhenConditionalRefreshHasNoValidatorToAskWith() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body([1])])
        t.transport.script("https://x.org/b", [.body([2], headers: ["etag": "\"v1\""])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "refresh": "conditional""#) + ","
                              + E.download("b", "https://x.org/b", inner: #", "refresh": "conditional""#))
        #expect(RunForecast(plan: plan, store: store).warnings.isEmpty, "nothing known before the first run")
        _ = await t.run(plan, store: store)
        var planned = plan
        planned.forecast = RunForecast(plan: plan, store: store)
        #expect(planned.forecast?.warnings == [0: RunForecast.noValidators])
        #expect(planned.forecast?.actions[1] == .conditional)
        #expect(planned.text().contains("      ! \(RunForecast.noValidators)\n"))
    }

    @Test func conditionalRefreshKeepsTheFileOn304AndReplacesItOn200() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body([1], headers: ["etag": "\"v1\""]), .status(304), .body([2], headers: ["etag": "\"v2\""])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "refresh": "conditional""#))
        _ = await t.run(plan, store: store)
        let kept = await t.run(plan, store: store)
        #expect(kept.summary.upToDate == 1)
        #expect(t.transport.requests.last?.ifNoneMatch == "\"v1\"")
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([1]))
        let replaced = await t.run(plan, store: store)
        #expect(replaced.summary.succeeded == 1)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([2]))
        #expect(try store.load("a")?.etag == "\"v2\"")
    }
}

extension CheckpointRunTests {
    /// Fetched again with the same bytes, the file in place is not replaced: its inode and
    /// times stay, so jobs derived from it stay up to date; new bytes replace it.
    @Test(arguments: ["always", "conditional"])
    func aRefreshThatBringsTheSameBytesKeepsTheFileAsItWas(refresh: String) async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body([1], headers: ["etag": "\"v1\""]), .body([1], headers: ["etag": "\"v1b\""]),
                                               .body([2], headers: ["etag": "\"v2\""])])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "refresh": "\#(refresh)""#))
        let path = t.folder.path + "/a.bin"
        _ = await t.run(plan, store: store)
        var before = stat()
        try #require(stat(path, &before) == 0)
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        var after = stat()
        try #require(stat(path, &after) == 0)
        #expect(after.st_ino == before.st_ino)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(try store.load("a")?.etag == "\"v1b\"", "the new validators are kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path) == ["a.bin"], "no partial left")
        _ = await t.run(plan, store: store)
        #expect(FileManager.default.contents(atPath: path) == Data([2]))
    }
}

/// What `status` shows after a failed run: the run's own words, for every kind of job.
extension CheckpointRunTests {
    /// A refusal the way the engine reports one.
    static func http(_ status: Int) -> TransferError {
        TransferError(kind: .permanent, code: "HTTP \(status)", message: "the server answered \(status)", httpStatus: status)
    }

    @Test func everyFailedJobShowsAsFailedWithTheRunsError() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        try #require(FileManager.default.createFile(atPath: t.folder.path + "/blocker", contents: Data("x".utf8)))
        let source = t.folder.appendingPathComponent("up.txt").path
        try #require(FileManager.default.createFile(atPath: source, contents: Data("up".utf8)))
        t.transport.script("https://x.org/gone", [.failure(Self.http(404))])
        t.transport.script("https://x.org/u", [.failure(Self.http(403))])
        let plan = try t.plan(jobs: [
            E.download("blocked", "https://x.org/a", to: "blocker/a.bin"),
            E.download("gone", "https://x.org/gone"),
            #"{"id": "u", "upload": {"from": "\#(source)", "url": "https://x.org/u"}}"#,
        ].joined(separator: ","))
        let result = await t.run(plan, store: store)
        #expect(result.summary.failed == 3)
        let status = try JobStatus.all(plan: plan, store: store)
        #expect(status.map(\.state) == [.failed, .failed, .failed])
        #expect(status[0].lastError == "mkdir: cannot create the folder \(t.folder.path)/blocker: a file of that name is in the way")
        #expect(status[1].lastError == "HTTP 404: the server answered 404")
        #expect(status[2].lastError == "HTTP 403: the server answered 403")
    }

    /// Ctrl-C cancels the transfers under way: those jobs did not fail, and the next run
    /// does them. `status` showed "failed  cancelled: the transfer was cancelled".
    @Test func aCancelledDownloadShowsAsPendingNotFailed() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.failure(TransferError(kind: .cancelled, code: "cancelled", message: "the transfer was cancelled"))])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"))
        _ = await t.run(plan, store: store)
        let status = try JobStatus.all(plan: plan, store: store)
        #expect(status.map(\.state) == [.pending])
        #expect(status[0].lastError == nil)
    }

    @Test func aDownloadThatReceivedNothingLeavesNoPartialBehind() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/gone", [.failure(Self.http(404))])
        let result = await t.run(try t.plan(jobs: E.download("gone", "https://x.org/gone")), store: InMemoryCheckpointStore())
        #expect(result.state("gone") == .failed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path) == [])
    }

    /// The file from the earlier run is still the verified one: the failed refresh changed nothing.
    @Test func aFailedRefreshLeavesTheFinishedDownloadDone() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body([1], headers: ["etag": "\"v1\""]), .failure(Self.http(403)), .status(304)])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "refresh": "conditional""#))
        _ = await t.run(plan, store: store)
        #expect(await t.run(plan, store: store).state("a") == .failed)
        let status = try JobStatus.all(plan: plan, store: store)
        #expect(status.map(\.state) == [.done])
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data([1]))
        #expect(await t.run(plan, store: store).summary.upToDate == 1, "the next run asks again, conditionally")
        #expect(t.transport.requests.last?.ifNoneMatch == "\"v1\"")
    }

    /// The sources' sizes, inodes and modification times as recorded: up to date without
    /// reading them. Shown by a change the quick check cannot see (same size and time,
    /// other bytes, as rsync's quick check would miss it): nothing is sent.
    @Test func anUploadWhoseSourceKeepsItsStampIsUpToDateWithoutReadingIt() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let (plan, source) = try Self.oneUpload(t)
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        var info = stat()
        try #require(stat(source, &info) == 0)
        let handle = try #require(FileHandle(forWritingAtPath: source))
        try handle.write(contentsOf: Data("ONE".utf8))
        try handle.close()
        let times = [info.st_atim, info.st_mtim]  // to the nanosecond (a Date would round it)
        try #require(utimensat(AT_FDCWD, source, times, 0) == 0)
        #expect(await t.run(plan, store: store).summary.upToDate == 1)
        #expect(t.transport.requests.count == 1)
    }

    @Test func anUploadWhoseSourceWasOnlyTouchedIsUpToDateAndRemembersTheNewTime() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let (plan, source) = try Self.oneUpload(t)
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        let before = try store.load("u")?.etag
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: source)
        #expect(await t.run(plan, store: store).summary.upToDate == 1, "the same content: not sent again")
        let after = try store.load("u")?.etag
        #expect(after != nil && after != before, "the new time is recorded, so the next run reads nothing")
        #expect(t.transport.requests.count == 1)
    }

    /// A source written to while it is sent (a log, a file replaced): the server may hold
    /// neither version. Not recorded as done; the retry sends it again.
    @Test func aSourceThatChangesWhileItIsSentIsSentAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let (plan, source) = try Self.oneUpload(t)
        let sends = Slot(0)
        let appending = EditingTransport(base: t.transport) {
            // The first send sees the file grow under it.
            if sends.update({ $0 += 1; return $0 }) == 1 { _ = FileManager.default.createFile(atPath: source, contents: Data("one, two".utf8)) }
        }
        let result = await Executor(plan: plan, transport: appending, clock: t.clock, events: t.events, environment: [:],
                                    options: .init(checkpoints: store), random: { 0.5 }).run()
        #expect(result.state("u") == .succeeded)
        let attempts = try #require(result.job("u")?.lifecycle.attempts)
        #expect(attempts.count == 2)
        #expect(attempts.first?.failure?.code == "source-changed")
        #expect(try store.load("u")?.sha256 == FileDigest.sha256(ofText: "one, two"), "recorded: what the second send read")
    }

    /// A plan uploading `up.txt` (holding "one") to https://x.org/u, which gives `answers`.
    static func oneUpload(_ t: E, answers: [InMemoryTransport.Answer] = [.body([])]) throws -> (plan: Plan, source: String) {
        let source = t.folder.appendingPathComponent("up.txt").path
        try #require(FileManager.default.createFile(atPath: source, contents: Data("one".utf8)))
        t.transport.script("https://x.org/u", answers)
        return (try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source)", "url": "https://x.org/u"}}"#), source)
    }

    /// Sent, then the source changed (the run meant to send it again was interrupted):
    /// `status` no longer says done.
    @Test func anUploadWhoseSourceChangedSinceIsPendingInStatus() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let (plan, source) = try Self.oneUpload(t)
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        #expect(try JobStatus.all(plan: plan, store: store).map(\.state) == [.done])
        try #require(FileManager.default.createFile(atPath: source, contents: Data("two".utf8)))
        let status = try JobStatus.all(plan: plan, store: store)
        #expect(status.map(\.state) == [.pending])
        #expect(status.first?.reason == "the source changed since it was sent")
    }

    /// What the server holds is no longer known to be the source, so the upload is not done.
    @Test func aFailedUploadOfAChangedSourceIsNoLongerDone() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let (plan, source) = try Self.oneUpload(t, answers: [.body([]), .failure(Self.http(403))])
        #expect(await t.run(plan, store: store).summary.succeeded == 1)
        try #require(FileManager.default.createFile(atPath: source, contents: Data("two".utf8)))
        #expect(await t.run(plan, store: store).summary.failed == 1)
        #expect(try JobStatus.all(plan: plan, store: store).map(\.state) == [.failed])
    }
}

extension CheckpointRunTests {
    @Test func a304ToAnUnconditionalRequestNeverBecomesTheFinalFile() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.status(304)])
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")), store: InMemoryCheckpointStore())
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason?.hasPrefix("HTTP 304: ") == true)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/a.bin"))
    }

    @Test func aPartialAnotherProcessIsWritingIsLeftAloneAndTheJobFailsSayingSo() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body(Array("ours".utf8))])
        let partial = t.folder.path + "/a.bin.xferpart"
        try Data("theirs, still arriving".utf8).write(to: URL(fileURLWithPath: partial))
        let theirs = open(partial, O_RDWR)  // another run with this destination: it holds the lock
        defer { close(theirs) }
        try #require(flock(theirs, LOCK_EX | LOCK_NB) == 0)
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")), store: InMemoryCheckpointStore())
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason == "busy: another process is writing \(partial) (a run of another manifest with the same destination?)")
        #expect(FileManager.default.contents(atPath: partial) == Data("theirs, still arriving".utf8), "not emptied, not appended to")
        #expect(t.transport.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/a.bin"))
    }

    @Test func thePartialStaysLockedUntilItIsRenamedIntoPlace() async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/a", [.body(Array("ours".utf8))])
        let partial = t.folder.path + "/a.bin.xferpart"
        let lockedAtFinish = Slot<[Bool]>([])
        let store = FinishWatchingStore { _ in
            // What another run would try at this moment.
            let fd = open(partial, O_RDONLY)
            let refused = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0
            if fd >= 0 { close(fd) }
            lockedAtFinish.update { $0.append(refused) }
        }
        let result = await t.run(try t.plan(jobs: E.download("a", "https://x.org/a")), store: store)
        #expect(result.state("a") == .succeeded)
        #expect(lockedAtFinish.current == [true], "recorded, not yet renamed: another run cannot take it now")
    }
}

/// An in-memory store that calls `beforeFinish` when a finished file is recorded, the
/// moment just before its rename: to do there what another process might.
final class FinishWatchingStore: CheckpointStore {
    let base = InMemoryCheckpointStore()
    let beforeFinish: @Sendable (JobCheckpoint) -> Void

    init(beforeFinish: @escaping @Sendable (JobCheckpoint) -> Void) { self.beforeFinish = beforeFinish }

    func load(_ jobID: String) throws -> JobCheckpoint? { try base.load(jobID) }
    func save(_ checkpoint: JobCheckpoint) throws { try base.save(checkpoint) }
    func remove(_ jobIDs: [String]) throws { try base.remove(jobIDs) }
    func all() throws -> [JobCheckpoint] { try base.all() }

    func saveFinishedFile(_ checkpoint: JobCheckpoint) throws {
        beforeFinish(checkpoint)
        try base.save(checkpoint)
    }
}

@Suite("Checkpoints: SQLite store")
struct SQLiteCheckpointStoreTests {
    func folder() throws -> String {
        let f = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: f, withIntermediateDirectories: true)
        return f
    }

    @Test func checkpointsSurviveReopening() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let record = JobCheckpoint(jobID: "a", fingerprint: "f", phase: .done, attempts: 2, bytes: 10, expectedSize: 10, etag: "\"e\"",
                                   lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", finalPath: "/x/a", sha256: "ab", updatedAt: 5)
        do {
            let store = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
            try store.save(record)
            try store.save(JobCheckpoint(jobID: "b", fingerprint: "g", phase: .running))
        }
        let reopened = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(try reopened.load("a") == record)
        #expect(try reopened.all().map(\.jobID) == ["a", "b"])
        #expect(try reopened.all().first == record, "every column, as the start-up preload reads them")
        try reopened.remove(["a"])
        #expect(try reopened.load("a") == nil)
    }

    @Test func aPartialDownloadsCheckpointReadsBackWithEveryColumn() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let partial = JobCheckpoint(jobID: "p", fingerprint: "f", phase: .running, attempts: 3, bytes: 4096, expectedSize: 1 << 40,
                                    etag: "W/\"é\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", partialPath: "/x/p.xferpart",
                                    bootID: "b-1", updatedAt: 1.5, lastError: "HTTP 503: busy", durableBytes: 2048,
                                    finalModified: 1_763_700_000_123_456_789)
        try SQLiteCheckpointStore(path: dir + "/c.sqlite").save(partial)
        let read = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(try read.all() == [partial])
        #expect(try read.load("p") == partial)
    }

    /// The durability argument: a write-ahead log, synced at checkpoints (`NORMAL`, 1);
    /// a new database is created without syncs, and must not stay that way.
    @Test func aNewStoreRunsInWALModeWithNormalSynchronisation() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let created = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(try created.settings() == ("wal", 1))
        try created.save(JobCheckpoint(jobID: "a", fingerprint: "f", phase: .running))
        #expect(FileManager.default.fileExists(atPath: dir + "/c.sqlite-wal"))
        #expect(try SQLiteCheckpointStore(path: dir + "/c.sqlite").settings() == ("wal", 1), "reopened")
    }

    @Test func aStoreFromANewerVersionIsRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        let sqlite = ChildProcess.run("/usr/bin/env", ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"INSERT INTO grdb_migrations VALUES ('v99: from the future')\"); c.commit()", dir + "/c.sqlite"])
        #expect(sqlite.status == 0)
        #expect { _ = try SQLiteCheckpointStore(path: dir + "/c.sqlite", busyTimeout: 0.1) } throws: {
            "\($0)".contains("written by a newer xferbatch")
        }
    }

    @Test func aStoreLockedByAnotherConnectionIsNotMovedAsideAsCorrupt() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Another process half-way through creating the store: before it switches to a
        // write-ahead log, its exclusive lock keeps readers out too.
        let other = try DatabaseQueue(path: dir + "/c.sqlite")
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE; CREATE TABLE t (x)")
            defer { try? db.execute(sql: "ROLLBACK") }
            #expect { _ = try SQLiteCheckpointStore(path: dir + "/c.sqlite", busyTimeout: 0.1) } throws: {
                "\($0)".contains("cannot open the state database")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.contains(".corrupt-") })
        #expect(try SQLiteCheckpointStore(path: dir + "/c.sqlite").warning == nil)
    }

    @Test func readingAStoreAnOlderVersionWroteMigratesACopyAndLeavesTheFileAsItWas() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A store from before "v2: durable offsets of partial files", with one finished job.
        let old = try DatabaseQueue(path: dir + "/c.sqlite")
        try SQLiteCheckpointStore.migrations.migrate(old, upTo: "v1: job checkpoints")
        try old.write { db in
            try db.execute(sql: "INSERT INTO job_checkpoint (job_id, fingerprint, phase, attempts, bytes, updated_at) VALUES ('a', 'fp', 'done', 1, 5, 1)")
        }
        try old.close()
        let store = try SQLiteCheckpointStore.reading(path: dir + "/c.sqlite")
        #expect(try store.load("a")?.phase == .done)
        #expect(try store.load("a")?.durableBytes == nil)
        #expect(try store.load("a")?.finalModified == nil, "trusted by size, as when it was written")
        let applied = try DatabaseQueue(path: dir + "/c.sqlite").read { try SQLiteCheckpointStore.migrations.appliedIdentifiers($0) }
        #expect(applied == ["v1: job checkpoints"], "the file is not migrated")
    }

    @Test func readingADamagedStoreShowsItEmptyWithAWarningAndMovesNothing() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let garbage = Data(repeating: 0x5A, count: 8192)
        _ = FileManager.default.createFile(atPath: dir + "/c.sqlite", contents: garbage)
        let store = try SQLiteCheckpointStore.reading(path: dir + "/c.sqlite")
        #expect(store.warning?.contains("unreadable") == true)
        #expect(store.warning?.contains("the next run moves it aside") == true)
        #expect(try store.all().isEmpty)
        #expect(FileManager.default.contents(atPath: dir + "/c.sqlite") == garbage)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.contains(".corrupt-") })
    }

    @Test func aCorruptStoreIsMovedAsideWithAWarning() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/c.sqlite", contents: Data(repeating: 0x5A, count: 8192))
        let store = try SQLiteCheckpointStore(path: dir + "/c.sqlite")
        #expect(store.warning?.contains("moved it to") == true)
        #expect(try store.all().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).contains { $0.hasPrefix("c.sqlite.corrupt-") })
    }
}

@Suite("Disk space")
struct DiskSpaceTests {
    @Test func aDownloadTooLargeForTheDiskFailsAtOnceAndOthersGoOn() async throws {
        let t = try ExecutorTesting()
        defer { t.cleanUp() }
        t.transport.script("https://x.org/small", [.body([1])])
        let plan = try t.plan(jobs: ExecutorTesting.download("huge", "https://x.org/huge", inner: #", "size": "900TB""#) + ","
                              + ExecutorTesting.download("small", "https://x.org/small"))
        let result = await t.run(plan)
        #expect(result.state("huge") == .failed)
        #expect(result.job("huge")?.lifecycle.reason?.hasPrefix("no-space: ") == true)
        #expect(result.job("huge")?.lifecycle.reason?.contains("is free there") == true)
        #expect(t.transport.requests.allSatisfy { $0.url.hasSuffix("/small") }, "the big one was never requested")
        #expect(result.state("small") == .succeeded)
    }
}

@Suite("Job fingerprints")
struct JobFingerprintTests {
    @Test(arguments: [nil, Auth.basic(userEnv: "U", passwordEnv: "P"), .bearer(tokenEnv: "T"), .netrc] as [Auth?])
    func theAuthPartIsSpelledAsEarlierVersionsStoredIt(auth: Auth?) {
        #expect(JobFingerprint.authPart(auth) == "auth:\(String(describing: auth))")
    }

    /// Fingerprints are stored: the formula is fixed, the SHA-256 of the parts joined by
    /// U+001F, whichever way the code computes it.
    @Test func aDownloadsFingerprintIsTheHashOfItsPartsJoined() throws {
        let t = try ExecutorTesting()
        defer { t.cleanUp() }
        let plan = try t.plan(jobs: ExecutorTesting.download("a", "https://x.org/a", inner: #", "sha256": "\#(String(repeating: "ab", count: 32))", "size": "7B""#))
        let job = plan.jobs[0]
        guard case .download(let d) = job.action else { Issue.record("not a download"); return }
        let parts = ["download", "https://x.org/a", d.to, String(repeating: "ab", count: 32), "7", "auth:nil"]
        #expect(JobFingerprint.of(job) == FileDigest.sha256(ofText: parts.joined(separator: "\u{1F}")))
    }
}

@Suite("Grouped commits and the done journal")
struct DoneJournalTests {
    /// A temporary folder holding a store, its journal and finished files.
    struct Folder {
        let scratch: TemporaryFolder
        var path: String { scratch.path }
        init() throws { scratch = try TemporaryFolder("journal") }
        var database: String { path + "/checkpoints.sqlite" }
        var journal: String { path + "/done.journal" }

        /// A finished download's file and its record.
        func finished(_ id: String, _ text: String) throws -> JobCheckpoint {
            let file = path + "/\(id).txt"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            return JobCheckpoint(jobID: id, fingerprint: "fp-\(id)", phase: .done, attempts: 1, bytes: Int64(text.utf8.count),
                                 etag: "\"e-\(id)\"", finalPath: file, sha256: FileDigest.sha256(ofText: text), updatedAt: 1,
                                 finalModified: FileStamp.of(file)?.modified)
        }
    }

    @Test func aFinishedFileWaitsForItsGroupButAKilledRunLosesNothing() throws {
        let f = try Folder()
        let record = try f.finished("a", "alpha")
        do {
            let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
            try store.saveFinishedFile(record)
            #expect(try store.load("a") == record)
            #expect(try SQLiteCheckpointStore(path: f.database).load("a") == nil, "grouped: not committed yet")
            // The process dies here: no flush.
        }
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 1)
        #expect(try SQLiteCheckpointStore(path: f.database).load("a") == record)
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).isEmpty)
    }

    @Test func aJournalLineWhoseFileIsNotIntactIsNotAdopted() throws {
        let f = try Folder()
        let changed = try f.finished("a", "alpha")
        let missing = try f.finished("b", "beta")
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        try store.saveFinishedFile(changed)
        try store.saveFinishedFile(missing)
        // Same size, other bytes (an older file at the path); and a file that is gone.
        try Data("ALPHA".utf8).write(to: URL(fileURLWithPath: changed.finalPath!))
        try FileManager.default.removeItem(atPath: missing.finalPath!)
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 0)
        #expect(try next.load("a") == nil)
        #expect(try next.load("b") == nil)
    }

    @Test func aTornLastLineIsIgnored() throws {
        let f = try Folder()
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        try store.saveFinishedFile(try f.finished("a", "alpha"))
        let handle = try #require(FileHandle(forWritingAtPath: f.journal))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"job": "b", "fingerprint": "fp-b", "byt"#.utf8))
        try handle.close()
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 1)
        #expect(try next.load("a")?.phase == .done)
    }

    @Test func flushCommitsTheGroupAndEmptiesTheJournal() throws {
        let f = try Folder()
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        for id in ["a", "b", "c"] { try store.saveFinishedFile(try f.finished(id, id)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).split(separator: 0x0A).count == 3)
        try store.flush()
        #expect(try SQLiteCheckpointStore(path: f.database).all().map(\.jobID) == ["a", "b", "c"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).isEmpty)
    }

    @Test func aGroupCommitEmptiesOnlyTheJournalFileItCommitted() throws {
        let f = try Folder()
        do {
            let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal, groupSize: 2)
            for id in ["a", "b", "c"] { try store.saveFinishedFile(try f.finished(id, id)) }
            #expect(try SQLiteCheckpointStore(path: f.database).all().map(\.jobID) == ["a", "b"], "the group of two")
            #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal)).isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal + "-1")).split(separator: 0x0A).count == 1)
            // The process dies here: "c" is only in the journal's second file.
        }
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(next.recovered == 1)
        #expect(try SQLiteCheckpointStore(path: f.database).all().map(\.jobID) == ["a", "b", "c"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.journal + "-1")).isEmpty)
    }

    @Test func theNewestLineOfAJobWinsWhicheverJournalFileHoldsIt() throws {
        let f = try Folder()
        var old = try f.finished("a", "alpha")
        old.updatedAt = 1
        var new = old
        new.attempts = 2
        new.updatedAt = 2
        // The newer line in the first file, the older in the second (read last).
        try Data(DoneJournal.line(for: new)).write(to: URL(fileURLWithPath: f.journal))
        try Data(DoneJournal.line(for: old)).write(to: URL(fileURLWithPath: f.journal + "-1"))
        let next = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        #expect(try next.load("a")?.attempts == 2)
    }

    @Test func aLaterSaveOfTheSameJobIsNeverOverwrittenByItsGroupedRecord() throws {
        let f = try Folder()
        let store = try PreloadedCheckpointStore(SQLiteCheckpointStore(path: f.database), journal: f.journal)
        let done = try f.finished("a", "alpha")
        try store.saveFinishedFile(done)
        var failed = done
        failed.phase = .failed
        failed.lastError = "HTTP 500"
        try store.save(failed)
        try store.flush()
        #expect(try SQLiteCheckpointStore(path: f.database).load("a")?.phase == .failed)
    }
}

@Suite("Hashing a download as it arrives")
struct FollowerTests {
    @Test func aDigestIsWrittenAsTheStandardLowerCaseHex() {
        // FIPS 180-2's example "abc", as `sha256sum` prints it and manifests give it.
        #expect(FileDigest.sha256(ofText: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(FileDigest.sha256(ofText: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func theFollowersDigestEqualsReadingTheFinishedFileBack() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-follow-\(UUID().uuidString)").path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        // A partial already there (a resume), then the rest arriving in pieces.
        let chunk = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let follower = try #require(FileDigest.Follower(path: path))
        for _ in 0..<20 {
            _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            usleep(200)
        }
        close(fd)
        let followed = await follower.finish(length: 21 * 300_000)
        #expect(followed == (try FileDigest.sha256(ofFileAt: path)))
    }

    @Test func aFileHashedFromATaskHasTheDigestOfReadingItDirectlyOnWhicheverThread() async throws {
        // Below the limit the task hashes it itself; above, a thread of its own does.
        for size in [Int(FileDigest.inlineHashLimit), Int(FileDigest.inlineHashLimit) + 1] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-hash-\(UUID().uuidString)").path
            defer { unlink(path) }
            try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: path))
            #expect(try await FileDigest.sha256Async(ofFileAt: path) == (try FileDigest.sha256(ofFileAt: path)), "\(size) bytes")
        }
        await #expect(throws: JobFailure.self) { try await FileDigest.sha256Async(ofFileAt: "/nonexistent/xferbatch-hash") }
    }

    @Test func hashingALargeFileStopsWhenItsTaskIsCancelled() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-hash-\(UUID().uuidString)").path
        defer { unlink(path) }
        try Data(count: 4 << 20).write(to: URL(fileURLWithPath: path))
        let hashing = Task { try await FileDigest.sha256Async(ofFileAt: path) }
        hashing.cancel()
        await #expect { _ = try await hashing.value } throws: { ($0 as? JobFailure)?.kind == .cancelled }
        let cancelled = BlockingWork.Cancellation()
        cancelled.cancel()
        #expect(throws: JobFailure.self, "stops at the first block") { try FileDigest.sha256(ofFileAt: path, cancellation: cancelled) }
    }

    @Test func aBodyHashedAsItIsWrittenHasTheDigestOfItsBytes() {
        let text = String(repeating: "0123456789", count: 5_000)
        let body = Array(text.utf8)
        let inline = FileDigest.Inline()
        body.withUnsafeBytes { all in
            for start in stride(from: 0, to: all.count, by: 16_384) {
                inline.update(UnsafeRawBufferPointer(rebasing: all[start..<min(start + 16_384, all.count)]))
            }
        }
        #expect(inline.finish(length: 50_000) == FileDigest.sha256(ofText: text))
    }

    @Test func anInlineDigestOfAnotherLengthOrStoppedIsNone() {
        let short = FileDigest.Inline()
        Array("hello".utf8).withUnsafeBytes { short.update($0) }
        #expect(short.finish(length: 6) == nil, "the file holds bytes it never saw")
        let stopped = FileDigest.Inline()
        Array("hello".utf8).withUnsafeBytes { stopped.update($0) }
        stopped.stop()  // a large body: its follower hashes it
        #expect(stopped.finish(length: 5) == nil)
    }

    @Test func aLengthOtherThanTheOneReadGivesNoDigest() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-follow-\(UUID().uuidString)").path
        defer { unlink(path) }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        let follower = try #require(FileDigest.Follower(path: path))
        #expect(await follower.finish(length: 6) == nil)
    }
}

/// A transport that does something (to the files, say) as each transfer starts.
struct EditingTransport: Transport {
    let base: any Transport
    let onPerform: @Sendable () -> Void

    func perform(_ request: TransferRequest, progress: TransferProgress) async throws(TransferError) -> TransferOutcome {
        onPerform()
        return try await base.perform(request, progress: progress)
    }
}

/// Files already at their destination that no run of this manifest recorded: a lost or
/// deleted state folder, outputs a CI cache restored, files another tool fetched.
@Suite("Checkpoints: files already there")
struct ExistingFileTests {
    typealias E = ExecutorTesting

    static let content = Array("0123456789".utf8)
    static let sha = FileDigest.sha256(ofText: "0123456789")

    static func plan(_ t: E, inner: String = #", "sha256": "\#(sha)""#) throws -> Plan {
        t.transport.script("https://x.org/a", [.body(content)])
        return try t.plan(jobs: E.download("a", "https://x.org/a", inner: inner))
    }

    @Test func aFileWithTheManifestsSHA256IsAdoptedWithoutARequest() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        try Data(Self.content).write(to: t.folder.appendingPathComponent("a.bin"))
        let plan = try Self.plan(t)
        #expect(RunForecast(plan: plan, store: store).actions == [.adopt(path: t.folder.path + "/a.bin")])
        let first = await t.run(plan, store: store)
        #expect(first.summary.upToDate == 1)
        #expect(t.transport.requests.isEmpty)
        let record = try #require(try store.load("a"))
        #expect(record.phase == .done && record.sha256 == Self.sha && record.bytes == 10)
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: t.folder.path + "/a.bin")], "recorded: not hashed again")
    }

    @Test func aFileWithAnotherSHA256IsReplacedByTheDownload() async throws {
        let t = try E()
        defer { t.cleanUp() }
        try Data("9876543210".utf8).write(to: t.folder.appendingPathComponent("a.bin"))
        let result = await t.run(try Self.plan(t), store: InMemoryCheckpointStore())
        #expect(result.summary.succeeded == 1)
        #expect(FileManager.default.contents(atPath: t.folder.path + "/a.bin") == Data(Self.content))
    }

    @Test(arguments: ["", #", "sha256": "\#(sha)", "refresh": "always""#, #", "sha256": "\#(sha)", "size": 11"#])
    func withoutAChecksumOrWhenAlwaysFetchedOrOfAnotherSizeTheFileIsDownloaded(inner: String) async throws {
        let t = try E()
        defer { t.cleanUp() }
        try Data(Self.content).write(to: t.folder.appendingPathComponent("a.bin"))
        let plan = try Self.plan(t, inner: inner)
        #expect(RunForecast(plan: plan, store: InMemoryCheckpointStore()).actions == [.transfer])
        let result = await t.run(plan, store: InMemoryCheckpointStore())
        #expect(result.summary.upToDate == 0)
        #expect(!t.transport.requests.isEmpty, "not adopted: the server was asked")
    }
}

@Suite("Checkpoints: renamed jobs")
struct RenamedJobTests {
    typealias E = ExecutorTesting

    /// Only the id changed: the finished file stays, nothing is fetched or read, and the
    /// record is the new id's from then on.
    @Test func aRenamedDownloadKeepsItsFinishedFile() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        t.transport.script("https://x.org/a", [.body(Array("alpha".utf8))])
        #expect(await t.run(try t.plan(jobs: E.download("linux", "https://x.org/a", to: "linux.tar")), store: store).summary.succeeded == 1)
        let renamed = try t.plan(jobs: E.download("kernel", "https://x.org/a", to: "linux.tar"))
        #expect(RunForecast(plan: renamed, store: store).actions == [.upToDate(path: t.folder.path + "/linux.tar")])
        #expect(try JobStatus.all(plan: renamed, store: store).map(\.state) == [.done], "status says what plan says")
        #expect(try StaleRecord.all(plan: renamed, store: store).isEmpty, "not stale while it is taken over")
        let requests = t.transport.requests.count
        let again = await t.run(renamed, store: store)
        #expect(again.summary.upToDate == 1)
        #expect(t.transport.requests.count == requests, "nothing fetched")
        #expect(try store.load("kernel")?.phase == .done)
        #expect(try store.load("kernel")?.sha256 == FileDigest.sha256(ofText: "alpha"))
        #expect(try StaleRecord.all(plan: renamed, store: store).map(\.id) == ["linux"], "stale once the new id has its record")
    }

    /// A 10 GiB backup's upload renamed is not sent again while its source is as it was.
    @Test func aRenamedUploadIsNotSentAgain() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let source = t.folder.path + "/backup.tar"
        try #require(FileManager.default.createFile(atPath: source, contents: Data("backup".utf8)))
        t.transport.script("https://x.org/backup.tar", [.body([])])
        let upload = { (id: String) in #"{"id": "\#(id)", "upload": {"from": "\#(source)", "url": "https://x.org/backup.tar"}}"# }
        #expect(await t.run(try t.plan(jobs: upload("nightly")), store: store).summary.succeeded == 1)
        let renamed = try t.plan(jobs: upload("backup"))
        #expect(RunForecast(plan: renamed, store: store).actions == [.upToDate(path: "https://x.org/backup.tar")])
        let requests = t.transport.requests.count
        #expect(await t.run(renamed, store: store).summary.upToDate == 1)
        #expect(t.transport.requests.count == requests, "nothing sent")
        #expect(try store.load("backup")?.phase == .done)
    }
}
