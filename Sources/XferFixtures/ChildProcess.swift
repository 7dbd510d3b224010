import Foundation

/// Runs a program to its end for a test's set-up or check, and gives its exit status and
/// standard output.
///
/// Spawned and reaped directly (`posix_spawn`, `waitpid`), bounded in time: Foundation's
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
    public static func run(_ program: String, _ arguments: [String], environment: [String]? = nil,
                           limit: Duration = .seconds(30)) -> Result {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return Result(status: -1, output: []) }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        defer { close(ends[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[1])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, program, &actions, nil, argv, $0) } ?? posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(ends[1])
        guard spawned == 0 else { return Result(status: -1, output: []) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            var n = 0
            repeat {
                n = read(ends[0], &buffer, buffer.count)
                if n > 0 { output += buffer[..<n] }
            } while n > 0
            if waitpid(pid, &status, WNOHANG) == pid {
                repeat {
                    n = read(ends[0], &buffer, buffer.count)
                    if n > 0 { output += buffer[..<n] }
                } while n > 0
                return Result(status: (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1, output: output)
            }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return Result(status: -1, output: output)
    }
}
