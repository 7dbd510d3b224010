import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

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
