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

    /// A validator with a control character in it is not kept, so it is never sent back
    /// in our own request; a good one beside it still serves.
    @Test func aValidatorWithAControlCharacterIsNeverSentBack() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let date = "Sun, 29 Nov 2026 01:00:00 GMT"
        t.transport.script("https://x.org/a", [.body([1], headers: ["etag": "\"v1\rX-Injected: 1\"", "last-modified": date]), .status(304)])
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a", inner: #", "refresh": "conditional""#))
        _ = await t.run(plan, store: store)
        #expect(try store.load("a")?.etag == nil)
        #expect(try store.load("a")?.lastModified == date)
        let kept = await t.run(plan, store: store)
        #expect(kept.summary.upToDate == 1)
        #expect(t.transport.requests.last?.ifNoneMatch == nil)
        #expect(t.transport.requests.last?.ifModifiedSince == date)
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

    /// A job whose attempt failed and that the run then did not retry (`--fail-fast` after
    /// another failed) shows that attempt's error in `status` with why, as the summary did.
    @Test(.timeLimit(.minutes(1)))
    func aJobNotRetriedSaysWhyInStatus() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        var busy = Self.http(503)
        busy.kind = .transient
        t.transport.script("https://y.org/b", [.failure(busy)])
        t.transport.script("https://x.org/a", [.failure(Self.http(404))])
        let plan = try t.plan(jobs: E.download("b", "https://y.org/b") + "," + E.download("a", "https://x.org/a"),
                              limits: #"{"concurrency": 1}"#)
        // On a stopped clock b's retry never comes: the run ends only because it stops.
        let result = await Executor(plan: plan, transport: t.transport, clock: StoppedClock(), events: t.events, environment: [:],
                                    options: .init(failFast: true, checkpoints: store), random: { 0.5 }).run()
        #expect(result.state("b") == .skipped)
        let status = try JobStatus.all(plan: plan, store: store)
        #expect(status[0].lastError == "HTTP 503: the server answered 503 (not retried: --fail-fast after a failed)")
        #expect(status[1].lastError == "HTTP 404: the server answered 404")
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
        #expect(status[0].reason == "started, but no data was kept")
        let duringARun = try JobStatus.all(plan: plan, store: store, runUnderWay: true)
        #expect(duringARun[0].reason == "started, no data yet", "perhaps the job that run is doing now")
    }

    /// A resumable download's record names its partial file; once that is removed, or
    /// replaced by a link or a folder, the record alone is no progress, and `status` says
    /// why the job is pending.
    @Test func aStartedDownloadWhosePartialIsGoneShowsAsPendingWithTheReason() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let store = InMemoryCheckpointStore()
        let plan = try t.plan(jobs: E.download("a", "https://x.org/a"))
        let partial = t.folder.path + "/a.bin.xferpart"
        try store.save(JobCheckpoint(jobID: "a", fingerprint: JobFingerprint.of(plan.jobs[0]), phase: .running, attempts: 1,
                                     bytes: 0, etag: "\"v1\"", partialPath: partial))
        #expect(try JobStatus.all(plan: plan, store: store).map(\.reason) == ["its partial file is gone"])
        try FileManager.default.createSymbolicLink(atPath: partial, withDestinationPath: "/etc/hostname")
        #expect(try JobStatus.all(plan: plan, store: store).map(\.reason)
                == ["its partial file was replaced by a symbolic link, which the next run removes to start over"])
        try FileManager.default.removeItem(atPath: partial)
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: false)
        #expect(try JobStatus.all(plan: plan, store: store).map(\.reason)
                == ["a folder has its partial file's name; the next attempt fails until it is moved"])
        try FileManager.default.removeItem(atPath: partial)
        try Data([1, 2]).write(to: URL(fileURLWithPath: partial))
        #expect(try JobStatus.all(plan: plan, store: store).map(\.state) == [.partial], "while it is there, it is progress")
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
