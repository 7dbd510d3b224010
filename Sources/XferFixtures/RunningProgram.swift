import Foundation

/// A program a test starts and talks to: its pid for signals, its output, its end.
///
/// Started with `posix_spawn`, not Foundation's `Process`: `Process.run()` in Swift 6.3.1
/// lists `/proc/self/fd` with a copy of each whole `dirent` name field, reading past the
/// end of glibc's buffer, and now and then that read hits an unmapped page: the test
/// runner died with signal 11 in `memcpy` under `Process.run()` (seen in a full test run;
/// swift-corelibs-foundation PR 5472). Its `waitUntilExit` also sometimes never saw a
/// short-lived child end (see `ChildProcess`).
///
/// Every descriptor of the test runner but the three standard ones is closed in the child
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34): one test's pipe must not stay
/// open in another test's child, or the first would wait for its end as long as that
/// child lives.
///
/// @unchecked: one test uses it from one thread at a time; the fields are set once.
public final class RunningProgram: @unchecked Sendable {
    /// Where a standard stream of the program goes.
    public enum Stream: Sendable {
        /// A pipe this object reads (`finish`, `firstLine`).
        case pipe
        /// /dev/null.
        case discard
        /// A file, created or truncated.
        case file(String)
        /// A pipe whose read end is closed before the program starts: every write fails
        /// (`EPIPE`, or SIGPIPE's default action), as when a reader went away.
        case unread
    }

    /// How the program ended.
    public enum Ending: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status as a shell gives it: the status, or 128 + the signal.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }
    }

    public let pid: pid_t
    /// Read ends of the piped streams, or -1.
    private let output: Int32, errors: Int32
    private var ending: Ending?

    /// Starts `program` (a path) with `arguments`. `environment` nil passes the test runner's;
    /// `directory` nil starts it in the current one; `input`, when given, is its whole
    /// standard input (written at once, so keep it under a pipe's 64 KiB), else it reads
    /// the test runner's.
    public init(_ program: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
                input: [UInt8]? = nil, stdout: Stream = .pipe, stderr: Stream = .pipe) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        func pipeEnds() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return (ends[0], ends[1])
        }
        func route(_ stream: Stream, to target: Int32) throws -> Int32 {
            switch stream {
            case .pipe:
                let ends = try pipeEnds()
                childEnds.append(ends.write)
                parentEnds.append(ends.read)
                posix_spawn_file_actions_adddup2(&actions, ends.write, target)
                return ends.read
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                return -1
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                return -1
            case .unread:
                let ends = try pipeEnds()
                close(ends.read)
                childEnds.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.write, target)
                return -1
            }
        }
        do {
            var inputEnd: Int32 = -1
            if input != nil {
                let ends = try pipeEnds()
                childEnds.append(ends.read)
                inputEnd = ends.write
                parentEnds.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
            }
            let output = try route(stdout, to: 1)
            let errors = try route(stderr, to: 2)
            if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
            if let directory {
                guard let changeDirectory = Self.changeDirectory else { throw POSIXError(.ENOSYS) }
                _ = changeDirectory(&actions, directory)
            }
            let argv = ([program] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
            defer { (argv + (envp ?? [])).forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = envp.map { posix_spawn(&pid, program, &actions, nil, argv, $0) }
                ?? posix_spawn(&pid, program, &actions, nil, argv, environ)
            guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
            self.pid = pid
            self.output = output
            self.errors = errors
            if let input, inputEnd >= 0 {
                _ = input.withUnsafeBytes { write(inputEnd, $0.baseAddress, $0.count) }
                close(inputEnd)
            }
        } catch {
            parentEnds.forEach { close($0) }
            throw error
        }
    }

    deinit {
        if output >= 0 { close(output) }
        if errors >= 0 { close(errors) }
        if ending == nil { _ = poll() }
    }

    public func signal(_ signal: Int32) {
        if ending == nil { kill(pid, signal) }
    }

    /// How it ended, reaping it, or nil while it runs.
    public func poll() -> Ending? {
        if let ending { return ending }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        ending = Self.ending(status)
        return ending
    }

    /// Waits at most `limit` for it to end; nil if it still runs.
    public func wait(upTo limit: Duration) -> Ending? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let ending = poll() { return ending }
            usleep(5_000)
        }
        return poll()
    }

    /// Reads the piped streams to their ends, both at once so that neither pipe fills and
    /// blocks the program, then waits for its end. Past `limit` (nil: none), the program
    /// is killed (SIGKILL) and what it wrote so far is returned.
    public func finish(within limit: Duration? = nil) -> (ending: Ending, stdout: [UInt8], stderr: [UInt8]) {
        let deadline = limit.map { ContinuousClock.now + $0 }
        var collected: [Int32: [UInt8]] = [:]
        var open = [output, errors].filter { $0 >= 0 }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    kill(pid, SIGKILL)
                    break
                }
                timeout = Self.milliseconds(left)
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard Glibc.poll(&fds, nfds_t(fds.count), timeout) >= 0 || errno == EINTR else { break }
            for entry in fds where entry.revents != 0 {
                let n = read(entry.fd, &buffer, buffer.count)
                if n > 0 {
                    collected[entry.fd, default: []] += buffer[..<n]
                } else if n == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        if ending == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            ending = Self.ending(status)
        }
        return (ending ?? .exited(-1), collected[output] ?? [], collected[errors] ?? [])
    }

    /// The first line the program writes to its piped stdout, without the newline; nil when
    /// stdout ends first or no line came within `limit`. Reads one byte at a time, so
    /// nothing after the line is taken.
    public func firstLine(within limit: Duration = .seconds(30)) -> String? {
        guard output >= 0 else { return nil }
        let deadline = ContinuousClock.now + limit
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&entry, 1, Self.milliseconds(left))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let n = read(output, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return nil }
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// `duration` in whole milliseconds, rounded up: a timeout for `poll`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000 + 1)
    }

    private static func ending(_ status: Int32) -> Ending {
        (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    // glibc has both, but Swift's Glibc module does not declare them.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: CloseFrom.self) }
    private static let changeDirectory: ChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: ChangeDirectory.self) }
}
