import Foundation

/// Where `--events` goes: a file (created or truncated, as a shell's `>` does: a device or
/// FIFO such as `/dev/stdout` is written as it is), or stdout for `-`. A write that fails
/// (a full disk, a FIFO's reader gone) is said once on stderr; the run goes on.
enum JSONLinesFile {
    static func open(_ path: String) -> (@Sendable ([UInt8]) -> Void)? {
        if path == "-" { return { StandardStreams.write($0) } }
        let file = OutputDescriptor.open(path) { errno in
            StandardStreams.writeError("xferbatch: events are no longer written to \(path): \(String(cString: strerror(errno)))\n")
        }
        guard let file else { return nil }
        return { bytes in bytes.withUnsafeBytes { file.write($0) } }
    }
}
