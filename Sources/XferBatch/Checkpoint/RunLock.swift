import Foundation

/// One run per state folder: an exclusive `flock` on `<state>/lock`, held for the run.
///
/// The kernel releases it when the holder dies (even by `kill -9`), so a stale lock file
/// never blocks anyone; its text (pid and start time) only explains who holds it.
public final class RunLock: Sendable {
    public struct Held: Error, Sendable, CustomStringConvertible {
        public var holder: String
        public var description: String { "locked by \(holder)" }
    }

    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock, waiting up to `wait` (checking every 100 ms) when another run holds it.
    public static func acquire(stateFolder: String, wait: Duration? = nil) async throws -> RunLock {
        try FileManager.default.createDirectory(atPath: stateFolder, withIntermediateDirectories: true)
        let path = stateFolder + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CheckpointError("cannot open \(path): \(String(cString: strerror(errno)))") }
        let deadline = ContinuousClock.now + (wait ?? .zero)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                close(fd)
                throw CheckpointError("cannot lock \(path): \(String(cString: strerror(errno)))")
            }
            if ContinuousClock.now >= deadline {
                let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingSpaces ?? ""
                close(fd)
                throw Held(holder: text.isEmpty ? "another run" : text.replacingOccurrences(of: "\n", with: " "))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let text = "pid \(getpid()) since \(UTCTimestamp.string(from: Date()))\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return RunLock(descriptor: fd)
    }

    deinit {
        close(descriptor)  // releases the flock
    }
}
