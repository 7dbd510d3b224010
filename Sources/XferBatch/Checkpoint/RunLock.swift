import Foundation
import Synchronization

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
    private let released = Atomic<Bool>(false)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// How long a run waits for a state folder another run holds.
    public enum Wait: Sendable, Equatable {
        /// Not at all: `Held` at once (exit 3).
        case no
        /// At most this long, then `Held`.
        case upTo(Duration)
        /// Until the holder ends (a cron run queued behind a slow one).
        case indefinitely
    }

    /// Takes the lock, checking every 100 ms while another run holds it and `wait` allows.
    /// `waiting` is called once, with the holder, when the first try finds the lock held
    /// and the call is going to wait.
    ///
    /// A lock taken on a file that no longer has its name (`clean` deleted the state folder
    /// while this call waited) protects nothing: the call then starts over with a new one.
    public static func acquire(stateFolder: String, wait: Wait = .no,
                               waiting: (Held) -> Void = { _ in }) async throws -> RunLock {
        let deadline: ContinuousClock.Instant? = switch wait {
        case .no: .now
        case .upTo(let duration): .now + duration
        case .indefinitely: nil
        }
        let path = StateFolder(stateFolder).lock
        var told = false
        while true {
            do {
                try Folders.create(stateFolder)
            } catch {
                throw CheckpointError("\(error.message) (--state DIR keeps the state elsewhere)")
            }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else { throw StateFolder.openError(path, errno) }
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    close(fd)
                    throw CheckpointError("cannot lock \(path): \(String(cString: strerror(errno)))")
                }
                if let deadline, ContinuousClock.now >= deadline {
                    close(fd)
                    throw holder(path)
                }
                if !told {
                    told = true
                    waiting(holder(path))
                }
                do { try await Task.sleep(for: .milliseconds(100)) } catch { close(fd); throw error }
            }
            guard isNamed(path, fd) else {
                close(fd)
                continue
            }
            let text = "pid \(getpid()) since \(UTCTimestamp.string(from: Date()))\n"
            _ = ftruncate(fd, 0)
            _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
            return RunLock(descriptor: fd)
        }
    }

    /// Who holds the state folder's lock now, or nil when no run does. Takes nothing and
    /// creates nothing (`status` asks it, on a read-only file system too): a shared lock
    /// is tried and released at once, and only an exclusive holder refuses it.
    public static func holder(ofStateFolder stateFolder: String) -> Held? {
        let path = StateFolder(stateFolder).lock
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return nil
        }
        return errno == EWOULDBLOCK ? holder(path) : nil
    }

    /// Whether `path` still names the file open as `fd`.
    private static func isNamed(_ path: String, _ fd: Int32) -> Bool {
        var open = stat()
        var named = stat()
        return fstat(fd, &open) == 0 && stat(path, &named) == 0
            && open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Who holds the lock at `path`, from the text the holder wrote.
    private static func holder(_ path: String) -> Held {
        let text = (try? String(contentsOfFile: path, encoding: .utf8))?.replacingOccurrences(of: "\n", with: " ").trimmingSpaces ?? ""
        return Held(holder: text.isEmpty ? "another run" : text)
    }

    /// Gives the state folder up now, for a command that ends without tearing its objects
    /// down (`ProcessExit`); otherwise this happens when the lock goes away. Once only.
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Unlocked first: a close alone releases the lock only once every copy of the
        // descriptor is closed, and a process forked at that moment holds a copy until it
        // execs (CLOEXEC), which on a loaded machine took seconds (seen in the tests).
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    deinit { release() }
}
