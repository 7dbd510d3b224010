import Foundation

/// Runs a program to its end for a test's set-up or check, and gives its exit status and
/// standard output.
///
/// Spawned and reaped directly (`RunningProgram`: `posix_spawn`, `waitpid`), bounded in time: Foundation's
/// `Process.waitUntilExit` sometimes never saw a short-lived child end, and the thread
/// waiting in it (a Swift concurrency pool thread, in an async test) stayed blocked for
/// minutes; with two such threads on a 2-core machine every test of the run stalled, the
/// in-process fixture servers included (seen in CI: all tests ending together after
/// 315 s). Standard error goes to /dev/null.
public enum ChildProcess {
    public struct Result: Sendable {
        /// The exit status, or -1 when the program could not start, died by a signal, or
        /// had not ended within the limit (it is then killed).
        public var status: Int32
        public var output: [UInt8]
        public var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// `environment` nil passes this process's own; `limit` bounds the whole run.
    public static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil,
                           limit: Duration = .seconds(30)) -> Result {
        guard let running = try? RunningProgram(program, arguments, environment: environment, stderr: .discard) else {
            return Result(status: -1, output: [])
        }
        let (ending, output, _) = running.finish(within: limit)
        guard case .exited(let status) = ending else { return Result(status: -1, output: output) }
        return Result(status: status, output: output)
    }
}
