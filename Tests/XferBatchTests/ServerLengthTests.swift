import Foundation
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

/// What a download does with the length a server announces, through the real engine.
@Suite("A server's Content-Length")
struct ServerLengthTests {
    /// The length is the server's word: added to what a resume already holds, one past
    /// 64 bits' reach trapped and ended the whole run. It is a wrong length like any other.
    @Test func aResumeAnsweredWithALengthPast64BitsFailsTheJob() async throws {
        let t = try ExecutorTesting()
        defer { t.cleanUp() }
        let server = try await FixtureServer.start()
        let engine = try TransferEngine()
        server.script("/files/a.bin", [.untrueHeaders(206, headers: ["Content-Length": "\(Int64.max)", "Content-Range": "bytes 4-\(Int64.max)/*",
                                                                     "ETag": "\"v1\""], body: Array("456789".utf8))])
        let plan = try t.plan(jobs: ExecutorTesting.download("a", server.baseURL + "/files/a.bin", inner: #", "size": 10"#))
        let store = InMemoryCheckpointStore()
        let partial = t.folder.path + "/a.bin.xferpart"
        try Data("0123".utf8).write(to: URL(fileURLWithPath: partial))
        try store.save(JobCheckpoint(jobID: "a", fingerprint: JobFingerprint.of(plan.jobs[0]), phase: .running, etag: "\"v1\"",
                                     partialPath: partial, bootID: BootID.current))
        let result = await Executor(plan: plan, transport: engine, events: InMemoryEventSink(), environment: [:],
                                    options: .init(checkpoints: store)).run()
        await engine.shutdown()
        await server.stop()
        #expect(result.state("a") == .failed)
        #expect(result.job("a")?.lifecycle.reason?.contains("the server announces \(Int64.max) bytes, the manifest says 10") == true)
        #expect(!FileManager.default.fileExists(atPath: t.folder.path + "/a.bin"))
    }
}
