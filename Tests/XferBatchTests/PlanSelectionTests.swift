import Foundation
import Testing
@testable import XferBatch

/// `xferbatch run m.json JOB...`: the plan reduced to the jobs named and what they need.
@Suite("Plan: selected jobs")
struct PlanSelectionTests {
    typealias M = ManifestTesting

    /// a <- c <- pack -> b, and d alone.
    static let jobs = [
        M.download("a", to: "a.txt"), M.download("b", to: "b.txt"),
        #"{"id": "c", "dependsOn": ["a"], "download": {"url": "https://x.org/c", "to": "c.txt"}}"#,
        #"{"id": "pack", "archive": {"from": ["c", "b"], "to": "p.tar"}}"#, M.download("d", to: "d.txt"),
    ].joined(separator: ",")

    @Test func theJobsNamedKeepEveryJobTheyDependOnInManifestOrder() throws {
        let plan = try M.plan(M.manifest(jobs: Self.jobs)).selecting(["pack"])
        #expect(plan.jobs.map(\.id) == ["a", "b", "c", "pack"])
        #expect(plan.jobs.map(\.index) == [0, 1, 2, 3])
        #expect(plan.graph.dependencies == [[], [], [0], [1, 2]])
        #expect(plan.graph.waves.map { $0.map { plan.jobs[$0].id } } == [["a", "b"], ["c"], ["pack"]])
        #expect(plan.jobs[3].dependsOn == ["b", "c"])
        #expect(plan.selection == Plan.Selection(named: ["pack"], manifestJobs: 5))
        let two = try M.plan(M.manifest(jobs: Self.jobs)).selecting(["d", "c", "d"])
        #expect(two.jobs.map(\.id) == ["a", "c", "d"])
        #expect(two.selection?.named == ["d", "c"])
    }

    @Test func theTextAndTheJSONSayWhatWasSelected() throws {
        let plan = try M.plan(M.manifest(jobs: Self.jobs)).selecting(["c"])
        #expect(plan.text().contains("\n  2 jobs: 2 downloads, in 2 waves\n  selected: c and the 1 job needed first, of 5 in the manifest\n"))
        let json = String(decoding: plan.json(), as: UTF8.self)
        #expect(json.contains(#""selection":{"named":["c"],"manifestJobs":5}"#))
        let whole = try M.plan(M.manifest(jobs: Self.jobs))
        #expect(!whole.text().contains("selected:"))
        #expect(String(decoding: whole.json(), as: UTF8.self).contains(#""selection":null"#))
    }

    @Test func anUnknownJobIsAnErrorWithASuggestion() throws {
        let plan = try M.plan(M.manifest(jobs: Self.jobs))
        #expect {
            _ = try plan.selecting(["c", "pakc", "zz"])
        } throws: { error in
            (error as? Plan.SelectionError)?.lines == [#"no job "pakc" in m.json (did you mean "pack"?)"#, #"no job "zz" in m.json"#]
        }
    }
}
