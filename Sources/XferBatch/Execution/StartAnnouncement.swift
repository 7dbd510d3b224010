import Synchronization

/// Says once that an attempt has started work: `start` in the log, `job-started` in the
/// events.
///
/// Why not at once: most jobs of a nightly re-run are up to date, decided from the state
/// and a `stat`, without a request. Announcing them as started put a `start … (attempt 1):
/// URL -> path` line before each `ok … is up to date` one, half of a quiet night's log,
/// and read as if something had been fetched. The runner calls it when it commits to
/// work (a request, packing, unpacking); the executor calls it again when the attempt
/// ends, which is a no-op then, and otherwise announces an attempt that failed before
/// getting there, so that every `FAILED` follows its `start`.
final class StartAnnouncement: Sendable {
    private let announce: @Sendable (_ resumeFrom: Int64) -> Void
    private let done = Mutex(false)

    init(_ announce: @escaping @Sendable (_ resumeFrom: Int64) -> Void) {
        self.announce = announce
    }

    /// Announces, the first time only; `resumeFrom`: the bytes of a partial file the
    /// attempt asks the server to continue, shown so that a resumed run says so.
    func callAsFunction(resumeFrom: Int64 = 0) {
        guard done.withLock({ done in defer { done = true }; return !done }) else { return }
        announce(resumeFrom)
    }
}
