import Testing
@testable import XferBatch

@Suite("Plan rendering")
struct PlanRenderingTests {
    typealias M = ManifestTesting

    func samplePlan() throws -> Plan {
        try M.plan(M.manifest(jobs: [
            M.download("a", "https://x.org/a?token=s3cr3t", to: "a.bin"),
            M.download("b.c", to: "b", extra: #", "dependsOn": ["a"]"#),
            #"{"id": "z", "archive": {"from": ["a", "b.c"], "to": "z.tar"}}"#,
        ].joined(separator: ","), extra: #""name": "demo","#))
    }

    /// Each local input is shown as destinations are, relative to the manifest's folder
    /// (the run's log showed the first one relative and the others absolute); outside it
    /// a path stays absolute, and machine-read outputs keep them all absolute.
    @Test func anArchivesInputsAreEachShownRelativeToTheManifestsFolder() throws {
        let plan = try M.plan(M.manifest(jobs: [
            M.download("a", to: "a.bin"),
            #"{"id": "z", "allowOutsideOutputDir": true, "archive": {"from": ["a", "logs", "docs/*.txt", "/var/tmp/x.log"], "to": "z.tar"}}"#,
        ].joined(separator: ",")))
        let z = try #require(plan.jobs.last)
        #expect(z.source(relativeTo: plan.directory) == "a, logs, docs/*.txt, /var/tmp/x.log")
        #expect(z.source == "a, /work/logs, /work/docs/*.txt, /var/tmp/x.log")
        #expect(plan.text().contains("      a, logs, docs/*.txt, /var/tmp/x.log -> z.tar (tar)"), "\(plan.text())")
    }

    /// A chain of 100,000 jobs made the critical path one line a megabyte long, and an
    /// archive of every download listed each id twice; the text folds them, the JSON
    /// keeps them whole.
    @Test func longListsOfJobsAreFoldedInTheTextAndWholeInTheJSON() throws {
        let chain = (0..<30).map { i in M.download("j\(i)", "https://x.org/\(i)", to: "f\(i)", extra: i == 0 ? "" : #", "dependsOn": ["j\#(i - 1)"]"#) }
        let all = (0..<30).map { #""j\#($0)""# }.joined(separator: ", ")
        let plan = try M.plan(M.manifest(jobs: (chain + [#"{"id": "z", "archive": {"from": [\#(all)], "to": "z.tar"}}"#]).joined(separator: ",")))
        let text = plan.text()
        #expect(text.contains("  critical path: j0 -> j1 -> j2 -> j3 -> j4 -> … -> j28 -> j29 -> z (31 jobs)\n"), "\(text.prefix(400))")
        #expect(text.contains("  z (archive) after j0, j1, j2, j3, j4, j5, j6, j7, j8, j9 and 20 more\n"))
        #expect(text.contains("      j0, j1, j2, j3, j4, j5, j6, j7, j8, j9 and 20 more -> z.tar (tar)\n"))
        let json = String(decoding: plan.json(), as: UTF8.self)
        #expect(json.contains(#""j28","j29","z"]"#) && json.contains(#"j29"#))
    }

    @Test func jsonRoundTripsThroughTheParserWithWavesAndJobs() throws {
        let plan = try samplePlan()
        let root = try JSONParser.parse(plan.json())
        guard case .array(let waves)? = root["waves"]?.value, case .array(let jobs)? = root["jobs"]?.value else {
            Issue.record("waves or jobs missing"); return
        }
        #expect(waves.count == 3)
        #expect(jobs.count == 3)
        guard case .string(let kind)? = jobs[2]["kind"]?.value else { Issue.record(); return }
        #expect(kind == "archive")
    }

    @Test func prettyAndCompactJSONCarryTheSameDocument() throws {
        let plan = try samplePlan()
        let compact = plan.json()
        let pretty = plan.json(pretty: true)
        #expect(pretty.count > compact.count)
        let strip: ([UInt8]) -> [UInt8] = { $0.filter { $0 != 0x20 && $0 != 0x0A } }
        // No strings in the sample contain spaces, so removing whitespace must give equal bytes.
        #expect(strip(compact) == strip(pretty))
    }

    @Test func noOutputFormatLeaksSecretQueryValues() throws {
        let plan = try samplePlan()
        for output in [String(decoding: plan.json(), as: UTF8.self), plan.text(), plan.dot(), plan.mermaid()] {
            #expect(!output.contains("s3cr3t"))
        }
    }

    @Test func dotDrawsAnEdgeFromEachDependencyToItsDependent() throws {
        let dot = try samplePlan().dot()
        #expect(dot.hasPrefix("digraph \"demo\" {"))
        #expect(dot.contains("\"a\" -> \"b.c\";"))
        #expect(dot.contains("\"b.c\" -> \"z\";"))
    }

    @Test func mermaidUsesSafeNodeIDsAndLabelsWithTheRealID() throws {
        let mermaid = try samplePlan().mermaid()
        #expect(mermaid.contains("j1[\"b.c (download)\"]"))
        #expect(mermaid.contains("j0 --> j1"))
    }

    @Test func jsonWriterEscapesControlCharactersAndQuotes() throws {
        var w = JSONWriter()
        w.object { w in w.member("k", "a\"b\\c\n\u{01}é") }
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"k":"a\"b\\c\n\u0001é"}"#)
        guard case .string(let back)? = try JSONParser.parse(w.bytes)["k"]?.value else { Issue.record(); return }
        #expect(back == "a\"b\\c\n\u{01}é")
    }
}
