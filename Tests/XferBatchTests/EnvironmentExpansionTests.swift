import Testing
@testable import XferBatch

@Suite("Environment expansion")
struct EnvironmentExpansionTests {
    let expander = EnvironmentExpander(environment: ["HOST": "example.org", "EMPTY": ""])

    @Test func expandsSetVariables() throws {
        #expect(try expander.expand("https://${HOST}/f") == "https://example.org/f")
    }

    @Test func usesTheDefaultWhenUnsetOrEmpty() throws {
        #expect(try expander.expand("${PORT:-8080}") == "8080")
        #expect(try expander.expand("${EMPTY:-x}") == "x")
        #expect(try expander.expand("${HOST:-x}") == "example.org")
    }

    @Test func anUnsetVariableWithoutDefaultIsAnError() {
        #expect(throws: EnvironmentExpander.Failure.unset("PORT")) { try expander.expand("${PORT}") }
    }

    @Test func doubleDollarIsALiteralDollarAndALoneDollarStays() throws {
        #expect(try expander.expand("a$$b") == "a$b")
        #expect(try expander.expand("price$5") == "price$5")
        #expect(try expander.expand("$${HOST}") == "${HOST}")
    }

    @Test func malformedReferencesAreErrors() {
        #expect(throws: EnvironmentExpander.Failure.self) { try expander.expand("${HOST") }
        #expect(throws: EnvironmentExpander.Failure.self) { try expander.expand("${1X}") }
    }

    @Test func theManifestReportsAnUnsetVariableAtItsPath() {
        let lines = ManifestTesting.problems(ManifestTesting.manifest(jobs: ManifestTesting.download("a", "https://${MIRROR}/f")))
        #expect(lines.contains { $0.contains("jobs[0].download.url: environment variable MIRROR is not set (write ${MIRROR:-default} to give a default)") })
    }

    @Test func theManifestExpandsURLsAndPaths() throws {
        let plan = try ManifestTesting.plan(
            ManifestTesting.manifest(jobs: ManifestTesting.download("a", "https://${MIRROR}/f", to: "${SUB}/f.bin"), extra: #""outputDir": "${OUT:-out}","#),
            environment: ["MIRROR": "m.example.org", "SUB": "nightly"])
        guard case .download(let d) = plan.jobs[0].action else { Issue.record(); return }
        #expect(d.url.string == "https://m.example.org/f")
        #expect(d.to == "/work/out/nightly/f.bin")
    }
}
