import Foundation
import Synchronization
import XferCurl

/// Files are created one at a time: concurrent creations in one folder contend on the
/// folder's lock in ext4 (measured: slower than creating them serially, as curl does).
let creation = Mutex(())

// Fetches every URL of a curl-style config file (`url = ...` / `output = ...` pairs)
// through one TransferEngine at a fixed concurrency, writing each body to its output
// file. Used by bench/engine-fetch to compare with `curl --parallel` on the same list.
//
// Concurrency N means N transfers in flight, as with `curl --parallel-max N`: libcurl
// opens at most N connections to the host (CURLMOPT_MAX_HOST_CONNECTIONS), and over
// HTTP/1.1 a connection carries one transfer at a time. N more requests wait inside the
// engine (libcurl's pending queue), so a finished transfer's connection takes the next
// request on the loop thread at once, as curl starts its next transfer in the same loop;
// without them each hand-over waited for a worker task to wake (measured: 1.05x curl
// against 1.13x, medians of 30 alternating rounds).
//
// usage: xferbatch-engine-bench LIST CONCURRENCY
let arguments = CommandLine.arguments
guard arguments.count == 3, let concurrency = Int(arguments[2]),
      let list = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: xferbatch-engine-bench LIST CONCURRENCY\n".utf8))
    exit(2)
}
/// `bytes` without surrounding spaces and double quotes.
func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
    let strip: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\"")]
    var part = bytes[...]
    while let first = part.first, strip.contains(first) { part = part.dropFirst() }
    while let last = part.last, strip.contains(last) { part = part.dropLast() }
    return String(decoding: part, as: UTF8.self)
}

var jobs: [(url: String, output: String)] = []
var pendingURL: String?
// Parsed on bytes: Foundation's trimming took 30 ms of a 250 ms run (perf), time curl
// does not spend reading the same list.
for line in Array(list.utf8).split(separator: UInt8(ascii: "\n")) {
    guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
    let key = trimmed(line[..<equals]), value = trimmed(line[(equals + 1)...])
    if key == "url" { pendingURL = value }
    if key == "output", let url = pendingURL { jobs.append((url, value)); pendingURL = nil }
}

let engine = try TransferEngine(maxConnectionsPerHost: concurrency)
let queue = Mutex(jobs[...])
let start = ContinuousClock.now
// Long-lived workers pulling from a shared queue, two per slot (see above): no task per file.
let failures = await withTaskGroup(of: Int.self) { group in
    for _ in 0..<(2 * concurrency) {
        group.addTask {
            var failures = 0
            while let job = queue.withLock({ $0.popFirst() }) {
                let fd = creation.withLock { _ in open(job.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
                guard fd >= 0 else { failures += 1; continue }
                do {
                    _ = try await engine.perform(TransferRequest(url: job.url, destination: .file(descriptor: fd, offset: 0)),
                                                 progress: TransferProgress())
                } catch {
                    failures += 1
                }
                close(fd)
            }
            return failures
        }
    }
    var total = 0
    for await failed in group { total += failed }
    return total
}
let elapsed = ContinuousClock.now - start
await engine.shutdown()
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(String(format: "%d files in %.3f s (%.0f files/s), %d failed", jobs.count, seconds, Double(jobs.count) / seconds, failures))
exit(failures == 0 ? 0 : 1)
