import Testing
@testable import XferBatch

@Suite("Execution: outputs later jobs read")
struct RunOutputsTests {
    /// An archive names its inputs by job; only those jobs' final paths are kept, since
    /// nothing else reads them.
    @Test func onlyTheOutputsAnotherJobReadsAreKept() throws {
        let jobs = #"""
            {"id": "a", "download": {"url": "https://x.org/a", "to": "a.txt"}},
            {"id": "b", "download": {"url": "https://x.org/b", "to": "b.txt"}},
            {"id": "z", "archive": {"from": ["a"], "to": "z.tar"}}
            """#
        let outputs = RunOutputs(plan: try ManifestTesting.plan(ManifestTesting.manifest(jobs: jobs)))
        outputs.record("/work/a.txt", for: "a")
        outputs.record("/work/b.txt", for: "b")
        outputs.record("/work/z.tar", for: "z")
        #expect(outputs.path(of: "a") == "/work/a.txt")
        #expect(outputs.path(of: "b") == nil)
        #expect(outputs.path(of: "z") == nil)
    }
}
