import Foundation

/// Starts a thread that names itself, so `top -H`, `ps -L` and perf tell ours apart.
///
/// The new thread writes its own name to `/proc/thread-self/comm` before it runs `body`:
/// a live thread naming itself is the only way that is both deterministic and safe.
/// Foundation's `Thread.name` is none of these on Linux:
/// - set before `start()`, it never reaches the thread;
/// - set by the new thread, it is dropped while `start()` has not yet returned;
/// - set by the starter after `start()`, it writes through the thread's pthread handle,
///   which is freed once a short thread has ended: a SIGSEGV in `pthread_setname_np`
///   (seen in CI with a thread of `BlockingWork` that had already finished).
///
/// Names are at most 15 bytes (Linux truncates longer ones). Naming is cosmetic: if it
/// fails (no `/proc`), the thread keeps the name it inherited and `body` runs all the same.
public enum NamedThread {
    /// Starts `body` on a new thread called `name`; `stackSize` in bytes, 0 for the default.
    public static func start(_ name: String, stackSize: Int = 0, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        if stackSize > 0 { thread.stackSize = stackSize }
        thread.start()
    }

    /// Names the calling thread: one open, write and close of its own `comm`.
    static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
