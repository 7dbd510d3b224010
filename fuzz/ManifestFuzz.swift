// libFuzzer's entry point for `scripts/fuzz.sh`: a manifest's bytes through everything
// `validate` and `plan` do (the forecast from an empty store included), in process. Not
// part of the package: the script builds it in a package of its own under .build-fuzz/,
// with -sanitize=fuzzer.
//
// A crash, a trap (an index out of range, an overflow, a failed conversion) or a timeout
// is a finding; so is a plan whose JSON does not parse, or a refusal without a problem.
import Foundation
import XferBatch

private let environment = ["HOME": "/tmp/xferbatch-fuzz-home", "CI_API": "https://ci.example.org/api", "BUILD_ID": "7",
                           "API_TOKEN": "fuzz-token", "DEPLOY_USER": "deploy", "DEPLOY_PASSWORD": "fuzz-password"]
private let loader = ManifestLoader(environment: environment)
private let planner = Planner(environment: environment)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do throws(ManifestError) {
        let loaded = try loader.decode(bytes: bytes, path: "/tmp/xferbatch-fuzz/m.json", directory: "/tmp/xferbatch-fuzz")
        var plan = try planner.plan(loaded)
        // What `plan` shows beside it: each job's forecast and the disk-space check.
        plan.forecast = RunForecast(plan: plan, store: InMemoryCheckpointStore())
        _ = plan.text()
        let json = plan.json(pretty: true)
        guard (try? JSONSerialization.jsonObject(with: Data(json))) != nil else {
            fatalError("the plan's JSON does not parse:\n\(String(decoding: json, as: UTF8.self))")
        }
    } catch {
        guard !error.problems.isEmpty, !error.description.isEmpty else { fatalError("a refusal without a problem") }
    }
    return 0
}

@_cdecl("ManifestFuzz_main")
public func manifestFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { fuzzOneManifest($0, $1) }
}
