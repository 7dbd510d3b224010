import Foundation
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

/// A file sent by FTP or SFTP, or to a `file:` URL, is stored as `NAME.xferpart` and
/// renamed once whole (the engine's `partialUploadSuffix`), unless the upload says
/// `"inPlace": true`; HTTP servers decide that for themselves.
@Suite("Run: uploads stored under a temporary name")
struct TemporaryNameUploadTests {
    typealias E = ExecutorTesting

    func source(in t: E) -> String {
        let path = t.folder.appendingPathComponent("up.txt").path
        _ = FileManager.default.createFile(atPath: path, contents: Data("up".utf8))
        return path
    }

    @Test(arguments: [("ftp://x.org/pub/up.txt", "", ".xferpart"), ("sftp://x.org/srv/up.txt", "", ".xferpart"),
                      ("file:///nowhere/up.txt", "", ".xferpart"), ("ftp://x.org/pub/up.txt", #", "inPlace": true"#, nil),
                      ("https://x.org/up.txt", "", nil)])
    func aFileSentByFTPSFTPOrToAFileURLIsStoredUnderATemporaryName(url: String, extra: String, suffix: String?) async throws {
        let t = try E()
        defer { t.cleanUp() }
        t.transport.script(url, [.body([])])
        let plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source(in: t))", "url": "\#(url)"\#(extra)}}"#)
        let result = await t.run(plan)
        #expect(result.job("u")?.lifecycle.state == .succeeded)
        let request = try #require(t.transport.requests.first)
        #expect(request.options.partialUploadSuffix == suffix)
    }

    /// The server refuses the rename (some forbid it in an upload-only folder): the job's
    /// reason says how to store in place instead.
    @Test func aRefusedRenameSuggestsInPlace() async throws {
        let t = try E()
        defer { t.cleanUp() }
        let words = "the file was stored as ftp://x.org/pub/up.txt.xferpart, but the server refused to give it its final name (QUOT command failed with 550)"
        t.transport.script("ftp://x.org/pub/up.txt", [.failure(TransferError(kind: .permanent, code: "CURLE_QUOTE_ERROR", message: words))])
        let plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source(in: t))", "url": "ftp://x.org/pub/up.txt"}}"#)
        let reason = await t.run(plan).job("u")?.lifecycle.reason ?? ""
        #expect(reason == #"CURLE_QUOTE_ERROR: \#(words); "inPlace": true stores the file straight under its final name, for a server that refuses renames"#)
    }

    @Test(arguments: [("", "stored as up.txt.xferpart, renamed once whole"),
                      (#", "inPlace": true"#, "stored in place: the final name holds part of the file until the last byte is sent")])
    func thePlanSaysWhereTheFileIsStoredUntilWhole(extra: String, line: String) throws {
        let t = try E()
        defer { t.cleanUp() }
        let plan = try t.plan(jobs: #"{"id": "u", "upload": {"from": "\#(source(in: t))", "url": "sftp://x.org/srv/up.txt"\#(extra)}}"#)
        #expect(plan.text().contains("      \(line)\n"), "\(plan.text())")
        let json = String(decoding: plan.json(), as: UTF8.self)
        #expect(json.contains(extra.isEmpty ? #""storedAs":"up.txt.xferpart""# : #""storedAs":null"#), "\(json)")
    }
}
