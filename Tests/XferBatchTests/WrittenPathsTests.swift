import Testing
@testable import XferBatch

/// `run` writes, `plan` forecasts and `clean` removes the same temporary names.
@Suite("Planner: the paths a plan writes")
struct WrittenPathsTests {
    typealias M = ManifestTesting

    @Test func everyKindListsItsDestinationAndTemporaryName() throws {
        let jobs = [
            M.download("file", to: "a.zip"),
            M.download("named", to: "incoming/"),
            #"{"id": "pack", "archive": {"from": ["file"], "to": "bundle.tar.gz"}}"#,
            #"{"id": "unpack", "extract": {"from": "file", "to": "unpacked"}}"#,
            #"{"id": "send", "upload": {"from": "/work/a.zip", "url": "https://x.org/u"}, "dependsOn": ["file"]}"#,
        ]
        let written = try M.plan(M.manifest(jobs: jobs.joined(separator: ","))).writtenPaths()
        #expect(written.outputs == ["/work/a.zip", "/work/bundle.tar.gz"])
        #expect(written.partials == ["/work/a.zip.xferpart", "/work/incoming/.named.xferpart", "/work/bundle.tar.gz.xferpart"])
        #expect(written.folders == ["/work/unpacked"])
        #expect(written.stagingFolders == ["/work/unpacked.xferpart"])
    }
}
