/// The seam between the executor and the network: performs one transfer.
///
/// `TransferEngine` is the real implementation (libcurl); tests use an in-memory one.
public protocol Transport: Sendable {
    /// Runs `request` to completion, updating `progress` as bytes move.
    /// Cancelling the calling task stops the transfer promptly; bytes already written stay.
    func perform(_ request: TransferRequest, progress: TransferProgress) async throws(TransferError) -> TransferOutcome
}
