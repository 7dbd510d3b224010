import Foundation
import Testing

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
    /// there fails (`EPIPE`, or SIGPIPE's default action). Returns the raw wait status,
    /// or nil if the program had not ended after `limit`.
    static func runWithoutReader(_ args: [String], limit: Duration = .seconds(60)) async throws -> Int32? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        close(ends[0])
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)  // the child's copies are its stdout and stderr only
        defer { close(ends[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        let argv = ([binary.path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, binary.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(.init(rawValue: spawned) ?? .EIO) }
        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return status }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return nil
    }

    /// Runs `xferbatch args...` in `directory` as a user that file permissions apply to: as
    /// root (CI), a copy of the binary in `directory` as `nobody`, through `setpriv`; as
    /// anyone else, the binary as it is. (Root reads every folder, so a test of a folder
    /// that cannot be read needs another user.)
    ///
    /// A copy just written can be refused for a moment with "Text file busy" (`ETXTBSY`):
    /// a program another test starts at that instant inherits the copy's open write end
    /// until it has started. That refusal is tried again, a bounded number of times.
    static func runUnprivileged(_ args: [String], in directory: URL) async throws -> Result {
        guard getuid() == 0 else { return try await run(args, in: directory) }
        let copy = directory.appendingPathComponent("xferbatch-copy")
        if !FileManager.default.fileExists(atPath: copy.path) { try FileManager.default.copyItem(at: binary, to: copy) }
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "COLUMNS": "100", "HOME": directory.path]
        var result: Result
        var tries = 0
        repeat {
            if tries > 0 { try await Task.sleep(for: .milliseconds(50)) }
            tries += 1
            result = try await detached {
                try launch(URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + args,
                           environment: environment, in: directory)
            }
        } while result.status == 126 && result.stderr.contains("Text file busy") && tries < 20
        return result
    }

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

    /// Starts a program in the repository and collects its exit status and output. stderr
    /// is drained on its own thread while stdout is read here, so that neither pipe can
    /// fill up and block the child.
    private static func launch(_ executable: URL, _ args: [String], environment: [String: String]?, stdin: String? = nil,
                               in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = args
        process.currentDirectoryURL = directory ?? repository
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = stdin.map { _ in Pipe() }
        if let input { process.standardInput = input }
        try process.run()
        if let input, let stdin {
            // Small manifests: the pipe's buffer holds them, so writing first cannot block.
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let stderrBox = StderrBox()
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            stderrBox.data = err.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: stdoutData, as: UTF8.self),
                      stderr: String(decoding: stderrBox.data, as: UTF8.self))
    }

    /// Written by the draining thread before it signals; read after the wait.
    private final class StderrBox: @unchecked Sendable {
        var data = Data()
    }
}
