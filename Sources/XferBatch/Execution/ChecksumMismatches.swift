import Synchronization

/// The wrong SHA-256 each download's last attempt got, for the attempts after it.
///
/// Why: a mismatch is retried, because a body damaged on the way comes right next time.
/// But a manifest whose `sha256` is stale (the file was updated upstream) or mistyped gets
/// the same wrong digest every time: five whole downloads of a 1 GiB artifact, and the
/// backoff between them, for one failure. The same wrong digest twice is the server's
/// content, not damage, so the job fails then, saying so.
final class ChecksumMismatches: Sendable {
    private let digests = Mutex<[String: String]>([:])

    /// Records `digest` as `job`'s latest mismatch; true when the previous one was the same.
    func repeated(_ digest: String, for job: String) -> Bool {
        digests.withLock { $0.updateValue(digest, forKey: job) == digest }
    }
}
