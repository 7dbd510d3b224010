import Foundation

/// Unbuffered writes to stdout and stderr that outlive their reader.
///
/// A run's output is its log, and the log's reader (`| head`, `| jq`, a CI log streamer,
/// `logger`) may go away before the run ends. With SIGPIPE's default action the next
/// write killed the process mid-run (exit 141, no report, the summary lost), and
/// Foundation's `FileHandle.write` traps on the `EPIPE` that follows once SIGPIPE is
/// ignored. So `ignoreBrokenPipes()` ignores SIGPIPE, as curl does (libcurl asks for it
/// anyway under `CURLOPT_NOSIGNAL`: a TLS library may write to a closed socket), and a
/// stream whose write fails is dropped (see `OutputDescriptor`): the run finishes, with its
/// state, report and exit status whole; only the lines nobody could read are lost.
enum StandardStreams {
    /// Called first thing: from then on a closed reader shows as `EPIPE` on the write.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Dropped once a write failed: later writes are not attempted.
    private static let output = OutputDescriptor(STDOUT_FILENO)
    private static let error = OutputDescriptor(STDERR_FILENO)

    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { output.write($0) }
    }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { output.write(UnsafeRawBufferPointer($0)) }
    }

    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { error.write(UnsafeRawBufferPointer($0)) }
    }
}
