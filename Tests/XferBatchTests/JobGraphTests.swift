import Testing
@testable import XferBatch

@Suite("Job graph")
struct JobGraphTests {
    @Test func wavesFollowTheLongestDependencyChain() throws {
        // 0 <- 1 <- 3, 0 <- 2, 2 <- 3 ; 4 alone
        let graph = try JobGraph(dependencies: [[], [0], [0], [1, 2], []])
        #expect(graph.waves == [[0, 4], [1, 2], [3]])
        #expect(graph.wave == [0, 1, 1, 2, 0])
    }

    @Test func theCriticalPathIsTheLongestChain() throws {
        let graph = try JobGraph(dependencies: [[], [0], [1], [], [3]])
        #expect(graph.criticalPath == [0, 1, 2])
        #expect(graph.remainingChain == [3, 2, 1, 2, 1])
    }

    @Test func duplicateEdgesCountOnce() throws {
        let graph = try JobGraph(dependencies: [[], [0, 0, 0]])
        #expect(graph.dependencies[1] == [0])
        #expect(graph.dependents[0] == [1])
    }

    @Test func aCycleIsReportedAsAClosedWalkStartingAtItsFirstJob() {
        #expect(throws: JobGraph.Cycle(jobs: [1, 2, 3, 1])) {
            // 0 -> 1 -> 2 -> 3 -> 1 (0 only leads into the cycle)
            try JobGraph(dependencies: [[1], [2], [3], [1]])
        }
    }

    @Test func aSelfDependencyIsACycle() {
        #expect(throws: JobGraph.Cycle(jobs: [0, 0])) { try JobGraph(dependencies: [[0]]) }
    }

    @Test func dependsFollowsEdgesTransitively() throws {
        let graph = try JobGraph(dependencies: [[], [0], [1], []])
        #expect(graph.depends(2, on: 0))
        #expect(!graph.depends(0, on: 2))
        #expect(!graph.depends(3, on: 0))
    }

    @Test func aLargeChainDoesNotRecurse() throws {
        let n = 200_000
        let graph = try JobGraph(dependencies: (0..<n).map { $0 == 0 ? [] : [$0 - 1] })
        #expect(graph.waves.count == n)
        #expect(graph.criticalPath.count == n)
    }
}
