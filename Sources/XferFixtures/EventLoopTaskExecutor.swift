import NIOCore

/// Runs a fixture server's tasks on one of NIO's event loop threads instead of Swift's
/// cooperative pool.
///
/// The pool has one thread per processor (two in CI), and tests that wait synchronously
/// (starting nginx, sshd or vsftpd and polling their ports, listing an archive with
/// `bsdtar`) hold those threads meanwhile. A server answering from the pool then waited
/// with them: a CI run saw a fixture server leave a HEAD request and an upload without an
/// answer for 10 to 15 s, and the tests timed out on what is a test of timeouts. On its
/// event loop's thread a server answers whatever the tests do.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
