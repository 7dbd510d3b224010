import Testing
@testable import XferBatch

/// Test helpers: decode and plan manifest text in memory, as if from `/work/m.json`.
enum ManifestTesting {
    static let directory = "/work"

    static func plan(_ json: String, environment: [String: String] = [:]) throws -> Plan {
        let loaded = try ManifestLoader(environment: environment)
            .decode(bytes: Array(json.utf8), path: "m.json", directory: directory)
        return try Planner(environment: environment).plan(loaded)
    }

    /// The error lines for an invalid manifest; records a failure if it was accepted.
    static func problems(_ json: String, environment: [String: String] = [:],
                         sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        do {
            _ = try plan(json, environment: environment)
            Issue.record("the manifest was accepted", sourceLocation: sourceLocation)
            return []
        } catch let error as ManifestError {
            return error.lines
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            return []
        }
    }

    /// A one-job manifest around a job body (the JSON inside `{ "id": ..., <body> }`).
    static func manifest(jobs: String, extra: String = "") -> String {
        """
        {"version": 1, \(extra) "jobs": [\(jobs)]}
        """
    }

    static func download(_ id: String, _ url: String = "https://example.org/f", to: String? = nil, extra: String = "") -> String {
        let toPart = to.map { ", \"to\": \"\($0)\"" } ?? ""
        return "{\"id\": \"\(id)\"\(extra), \"download\": {\"url\": \"\(url)\"\(toPart)}}"
    }
}
