import Foundation

/// Where `--events` goes: a file (created or truncated, as a shell's `>` does: a device or
/// FIFO such as `/dev/stdout` is written as it is), or stdout for `-`. A write that fails
/// (a full disk, a FIFO's reader gone) is said once on stderr; the run goes on, and
/// `failed` tells it, at the end, that the file is incomplete (exit 1, as for a report).
struct JSONLinesFile: Sendable {
    let write: @Sendable ([UInt8]) -> Void
    /// Whether a write to the file failed (never for stdout, whose reader may leave, `| head`).
    let failed: @Sendable () -> Bool

    static func open(_ path: String) -> JSONLinesFile? {
        if path == "-" { return JSONLinesFile(write: { StandardStreams.write($0) }, failed: { false }) }
        let file = OutputDescriptor.open(path) { errno in
            StandardStreams.writeError("xferbatch: events are no longer written to \(path): \(String(cString: strerror(errno)))\n")
        }
        guard let file else { return nil }
        return JSONLinesFile(write: { bytes in bytes.withUnsafeBytes { file.write($0) } }, failed: { file.failed })
    }
}
