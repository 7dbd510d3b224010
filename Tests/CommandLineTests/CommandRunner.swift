import Foundation
import Testing
import XferFixtures

/// Runs the `xferbatch` binary built next to the test bundle and captures its output.
struct CommandRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Repository root, found from this file's path (Tests/CommandLineTests/...).
    static let repository: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary sits in the same build folder as the test bundle.
    static var binary: URL {
        let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for folder in candidates {
            let url = folder.appendingPathComponent("xferbatch")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return repository.appendingPathComponent(".build/debug/xferbatch")
    }

    /// Runs on a dedicated thread: the blocking reads must not occupy a thread of
    /// Swift's cooperative pool, which in-process fixture servers need to answer.
    /// - Parameters:
    ///   - stdin: what the program reads on standard input (nil: the test runner's).
    ///   - directory: where it runs (nil: the repository).
    static func run(_ args: [String], environment: [String: String] = [:], stdin: String? = nil,
                    in directory: URL? = nil) async throws -> Result {
        try await detached { try runBlocking(args, environment: environment, stdin: stdin, in: directory) }
    }

    /// Runs `xferbatch args...` with stdout and stderr on a pipe nobody
    /// reads: its read end is closed before the program starts, so every write it makes
    /// there fails (`EPIPE`, or SIGPIPE's default action). Returns how it ended, or nil if
    /// it had not ended after `limit`.
    static func runWithoutReader(_ args: [String], limit: Duration = .seconds(60)) async throws -> RunningProgram.Ending? {
        let program = try RunningProgram(binary.path, args, stdout: .unread, stderr: .unread)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let ending = program.poll() { return ending }
            try await Task.sleep(for: .milliseconds(10))
        }
        program.signal(SIGKILL)
        return nil
    }

    /// Runs `xferbatch args...` in `directory` as a user that file permissions apply to
    /// (`unprivileged`). (Root reads every folder, so a test of a folder that cannot be
    /// read needs another user.)
    static func runUnprivileged(_ args: [String], in directory: URL) async throws -> Result {
        guard getuid() == 0 else { return try await run(args, in: directory) }
        let command = try unprivileged(binary, in: directory) + args
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "COLUMNS": "100", "HOME": directory.path]
        var result: Result
        var tries = 0
        repeat {
            if tries > 0 { try await Task.sleep(for: .milliseconds(50)) }
            tries += 1
            result = try await detached {
                try launch(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: environment, in: directory)
            }
        } while result.status == 126 && isTextFileBusy(result.stderr) && tries < 20
        return result
    }

    /// The command that runs `program` as a user that file permissions apply to: as root
    /// (CI), a copy of it in `directory` (which `nobody` can reach wherever the build folder
    /// is) as `nobody`, through `setpriv`; as anyone else, the program as it is.
    static func unprivileged(_ program: URL, in directory: URL) throws -> [String] {
        guard getuid() == 0 else { return [program.path] }
        let copy = directory.appendingPathComponent(program.lastPathComponent + "-copy")
        if !FileManager.default.fileExists(atPath: copy.path) { try FileManager.default.copyItem(at: program, to: copy) }
        return ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", copy.path]
    }

    /// Whether a start was refused only because the copy `unprivileged` just wrote was still
    /// open for writing ("Text file busy", `ETXTBSY`: a program another test started at that
    /// instant had inherited the write end until it exec'd): worth trying again, a bounded
    /// number of times.
    static func isTextFileBusy(_ stderr: String) -> Bool { stderr.contains("Text file busy") }

    static func runTool(_ path: String, _ args: [String]) async throws -> Result {
        try await detached { try runToolBlocking(path, args) }
    }

    private static func detached(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// Runs `xferbatch args...` in the repository with exactly `environment` (plus PATH).
    private static func runBlocking(_ args: [String], environment: [String: String], stdin: String?, in directory: URL?) throws -> Result {
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        env["COLUMNS"] = env["COLUMNS"] ?? "100"
        return try launch(binary, args, environment: env, stdin: stdin, in: directory)
    }

    /// Runs any program (python3 for the schema checks).
    private static func runToolBlocking(_ path: String, _ args: [String]) throws -> Result {
        try launch(URL(fileURLWithPath: "/usr/bin/env"), [path] + args, environment: nil)
    }

    /// Starts a program in the repository (or `directory`) and collects its exit status (a
    /// signal's as 128 + the signal) and output. `RunningProgram`, not Foundation's `Process`,
    /// whose `run()` now and then crashed the test runner (see there).
    private static func launch(_ executable: URL, _ args: [String], environment: [String: String]?, stdin: String? = nil,
                               in directory: URL? = nil) throws -> Result {
        let program = try RunningProgram(executable.path, args, environment: environment, directory: (directory ?? repository).path,
                                         input: stdin.map { Array($0.utf8) })
        let (ending, stdout, stderr) = program.finish()
        return Result(status: ending.status, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}
