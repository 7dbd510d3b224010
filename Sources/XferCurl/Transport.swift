/// The seam between the executor and the network: performs one transfer.
///
/// `TransferEngine` is the real implementation (libcurl); tests use an in-memory one.
public protocol Transport: Sendable {
    /// Runs `request` to completion, updating `progress` as bytes move.
    /// Cancelling the calling task stops the transfer promptly; bytes already written stay.
    func perform(_ request: TransferRequest, progress: TransferProgress) async throws(TransferError) -> TransferOutcome

    /// Where the tasks that drive transfers should run, if the transport has a preference
    /// (the engine's own thread: no hand-off per transfer); nil: the global executor.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension Transport {
    public var taskExecutor: (any TaskExecutor)? { nil }
}
