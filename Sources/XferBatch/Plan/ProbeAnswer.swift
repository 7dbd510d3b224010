/// What `plan --probe` learned about one download: its size, or why it did not.
///
/// A probe is a HEAD request (FTP, SFTP, file: the size libcurl reports), so what it
/// meets says something about the run too: a 404 there is most likely a 404 for the
/// run's GET, a refused connection a run would retry. The plan shows those as warnings;
/// a server that only declines to say (no length, HEAD not allowed) is not a problem.
public enum ProbeAnswer: Sendable, Equatable {
    /// The size the server gave, in bytes; counted like a manifest's `size`.
    case size(Int64)
    /// The server answered but gave no size (no Content-Length, or HEAD not allowed).
    case sizeUnknown(why: String)
    /// The request failed: the failure as a run reports one, and whether a run would
    /// retry it. Not a verdict on the run: some servers refuse HEAD and serve GET (a URL
    /// signed for GET only answers 403 to anything else).
    case failed(String, retried: Bool)

    /// The size, when the server gave one.
    public var size: Int64? {
        if case .size(let size) = self { size } else { nil }
    }

    /// The warning the plan shows for a failed probe, or nil.
    public var warning: String? {
        guard case .failed(let failure, let retried) = self else { return nil }
        return "probe: \(failure); " + (retried ? "a run would retry it" : "a run's GET may fail the same way")
    }
}
