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

    /// `$`, `{` and `}` are read as signs even where a neighbouring mark joins them into
    /// one Character: `}` before a combining accent was "unterminated", a `$` after U+0600
    /// was kept as written.
    @Test(arguments: [("\u{600}${HOST}", "\u{600}example.org"), ("${HOST}\u{301}/f", "example.org\u{301}/f"),
                      ("${PORT:-\u{301}x}", "\u{301}x"), ("a$$\u{301}", "a$\u{301}"), ("$\u{301}{HOST}", "$\u{301}{HOST}")])
    func aSignJoinedToItsNeighbourIsStillASign(text: String, expanded: String) throws {
        #expect(try expander.expand(text) == expanded)
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

    @Test(arguments: [("API_TOKEN", true), ("SLACK_WEBHOOK", true), ("DEPLOY_KEY", true), ("DB_PASSWORD", true),
                      ("AWS_SECRET_ACCESS_KEY", true), ("GITHUB_AUTH", true), ("ftp_pass", true), ("URL_SIG", true),
                      ("VERSION", false), ("HOST", false), ("KEYBOARD_LAYOUT", false), ("MONKEY", false), ("HOME", false)])
    func aVariableNameSaysWhetherItHoldsASecret(name: String, secret: Bool) {
        #expect(EnvironmentExpander.looksSecret(name) == secret)
    }

    @Test func theValuesOfSecretVariablesAreNotedAndOthersAreNot() throws {
        let expander = EnvironmentExpander(environment: ["HOST": "example.org", "API_TOKEN": "t0k3n-1234", "EMPTY_TOKEN": ""])
        let (text, secrets) = try expander.expandNotingSecrets("https://${HOST}/${API_TOKEN}/${EMPTY_TOKEN:-x}$${API_TOKEN}")
        #expect(text == "https://example.org/t0k3n-1234/x${API_TOKEN}")
        #expect(secrets == ["t0k3n-1234"], "a default or an escaped reference is no secret")
    }

    /// A token in a webhook's path is as secret as one in a query: wherever the URL is
    /// shown (plan, log, events, reports) it reads `REDACTED`; the request carries it.
    @Test func aURLShowsNoTextFromASecretVariable() throws {
        let jobs = [ManifestTesting.download("hook", "https://hooks.example.org/services/${HOOK_TOKEN}/post"),
                    ManifestTesting.download("all", "${WEBHOOK_URL}"),
                    ManifestTesting.download("v", "https://example.org/${VERSION}/f")].joined(separator: ",")
        let plan = try ManifestTesting.plan(ManifestTesting.manifest(jobs: jobs),
                                            environment: ["HOOK_TOKEN": "T0/B1 x", "WEBHOOK_URL": "https://hooks.example.org/T0/xyz?k=1", "VERSION": "v1.2"])
        let urls = plan.jobs.compactMap { if case .download(let d) = $0.action { d.url } else { nil } }
        #expect(urls.map(\.redacted) == ["https://hooks.example.org/services/REDACTED/post", "https://hooks.example.org/REDACTED",
                                         "https://example.org/v1.2/f"])
        #expect(urls[0].string == "https://hooks.example.org/services/T0/B1%20x/post")
        for shown in [plan.text(), String(decoding: plan.json(), as: UTF8.self)] {
            #expect(!shown.contains("B1") && !shown.contains("xyz"))
        }
        // Nor does it name the file: the job id does.
        #expect(FileNaming.name(contentDisposition: nil, finalURL: urls[1].string, jobID: "all", secrets: urls[1].secretTexts) == "all")
        #expect(FileNaming.name(contentDisposition: nil, finalURL: urls[2].string, jobID: "v", secrets: urls[2].secretTexts) == "f")
    }

    /// A header that took a secret variable's value is sent as a `valueEnv` one is, only
    /// to the URL's own origin (libcurl passes other custom headers to any host a redirect
    /// names), and a plan shows it as `REDACTED`.
    @Test func aHeaderFromASecretVariableStaysWithItsOriginAndIsNotShown() throws {
        let job = #"{"id": "a", "download": {"url": "https://x.org/f", "headers": {"X-Trace": "t-${TRACE_TOKEN}", "X-Build": "${BUILD}"}}}"#
        let plan = try ManifestTesting.plan(ManifestTesting.manifest(jobs: job), environment: ["TRACE_TOKEN": "s3cr3t-77", "BUILD": "1042"])
        let headers = try SecretResolver(environment: [:]).headers(try #require(plan.jobs[0].transfer).headers)
        #expect(headers.all.map { "\($0.name): \($0.value)" } == ["X-Trace: t-s3cr3t-77", "X-Build: 1042"])
        #expect(headers.secret == ["x-trace"])
        let json = String(decoding: plan.json(), as: UTF8.self)
        #expect(json.contains(#""X-Trace":"REDACTED""#) && json.contains(#""X-Build":"1042""#), "\(json)")
        #expect(!json.contains("s3cr3t"))
    }
}
