import Foundation

extension FileDigest {
    /// Files up to this size are hashed by the calling task itself: about a millisecond.
    static let inlineHashLimit: Int64 = 1 << 20

    /// SHA-256 of a file, from a task: small files at once, larger ones on a thread of
    /// their own (`BlockingWork`), which stops early when the task is cancelled.
    ///
    /// Why: job tasks run on the transfer engine's thread (`Transport.taskExecutor`), and
    /// reading a large file back there (an upload's source, a download started over by a
    /// 200 answer to a Range request) would stall every transfer for as long as it takes.
    static func sha256Async(ofFileAt path: String) async throws -> String {
        if let size = DownloadStart.size(of: path), size <= inlineHashLimit { return try sha256(ofFileAt: path) }
        return try await BlockingWork.run { cancellation in try sha256(ofFileAt: path, cancellation: cancellation) }
    }
}
