import Foundation
import Testing

@Suite("xferbatch validate")
struct ValidateCommandTests {
    static let examples = ["quickstart", "nightly-sync", "ci-artifacts", "multipart-upload", "mirror"]

    @Test(arguments: examples)
    func everyExampleIsValid(name: String) async throws {
        let result = try await CommandRunner.run(["validate", "examples/\(name).json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("ok: "))
        #expect(result.stderr.isEmpty)
    }

    @Test func printsCountsByKind() async throws {
        let result = try await CommandRunner.run(["validate", "examples/nightly-sync.json"])
        #expect(result.stdout == "ok: 5 jobs (3 downloads, 1 upload, 1 archive)\n")
    }

    @Test func invalidManifestsExitWithCode2AndOneLinePerProblem() async throws {
        let result = try await CommandRunner.run(["validate", "Tests/Manifests/invalid/unknown-keys.json"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            Tests/Manifests/invalid/unknown-keys.json:5:7: limits.perhost: unknown key "perhost" (did you mean "perHost"?)
            Tests/Manifests/invalid/unknown-keys.json:10:47: jobs[0].download.sha265: unknown key "sha265" (did you mean "sha256"?)

            """)
    }

    @Test func aMissingManifestExitsWith2() async throws {
        let result = try await CommandRunner.run(["validate", "does-not-exist.json"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("does-not-exist.json: cannot read the file"))
    }

    @Test func aMissingArgumentIsAUsageErrorWithCode2() async throws {
        let result = try await CommandRunner.run(["validate"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("Missing expected argument '<manifest>'"))
    }
}
