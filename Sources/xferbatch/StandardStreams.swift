import Foundation
import Synchronization

/// Unbuffered writes to stdout and stderr that outlive their reader.
///
/// A run's output is its log, and the log's reader (`| head`, `| jq`, a CI log streamer,
/// `logger`) may go away before the run ends. With SIGPIPE's default action the next
/// write killed the process mid-run (exit 141, no report, the summary lost), and
/// Foundation's `FileHandle.write` traps on the `EPIPE` that follows once SIGPIPE is
/// ignored. So `ignoreBrokenPipes()` ignores SIGPIPE, as curl does (libcurl asks for it
/// anyway under `CURLOPT_NOSIGNAL`: a TLS library may write to a closed socket), and a
/// stream whose write fails is dropped: the run finishes, with its state, report and exit
/// status whole; only the lines nobody could read are lost.
///
/// Each call is one `write(2)` where the kernel takes it whole (large outputs go out in
/// one call), continued after a partial write or `EINTR`.
enum StandardStreams {
    /// Called first thing: from then on a closed reader shows as `EPIPE` on the write.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Set once a stream's write failed: later writes are not attempted.
    private static let outputGone = Atomic<Bool>(false)
    private static let errorGone = Atomic<Bool>(false)

    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send($0, to: STDOUT_FILENO, gone: outputGone) }
    }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { send(UnsafeRawBufferPointer($0), to: STDOUT_FILENO, gone: outputGone) }
    }

    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { send(UnsafeRawBufferPointer($0), to: STDERR_FILENO, gone: errorGone) }
    }

    private static func send(_ bytes: UnsafeRawBufferPointer, to fd: Int32, gone: borrowing Atomic<Bool>) {
        guard !gone.load(ordering: .relaxed), var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(fd, next, left)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                gone.store(true, ordering: .relaxed)
                return
            }
            next += written
            left -= written
        }
    }
}
