import Foundation
import XferCurl

extension JobRunner {
    /// The failure a download's transfer ended with, once what it leaves is settled: which
    /// partial stays for a re-run to continue, and what the record says. The caller has
    /// closed the partial.
    ///
    /// - Parameters:
    ///   - record: the attempt's record (phase `running`), saved here unless the attempt
    ///     was a refresh of a finished file that failed before a byte arrived.
    ///   - t: the job's transfer settings, which the hints in the message name.
    func failure(of error: TransferError, _ attempt: DownloadAttempt, record: JobCheckpoint, settings t: EffectiveTransfer) -> JobFailure {
        var record = record
        let partial = attempt.partial
        let resumeFrom = attempt.resumeFrom
        if (resumeFrom == 0 && DownloadStart.size(of: partial) == 0) || error.code == Self.sizeMismatch {
            // Unless nothing arrived (a 404, a refused connection): an empty partial
            // continues nothing and would only litter the output folder. Nor does one
            // of a file whose length is not the manifest's.
            unlink(partial)
            record.partialPath = nil
        }
        // An interrupt (Ctrl-C) is no failure of the job's: `status` shows it pending
        // (or partial), not failed.
        if error.kind != .cancelled { record.lastError = "\(error.code): \(error.message)" }
        if resumeFrom > 0, error.httpStatus == 416 || TransferError.cannotContinue.contains(error.code) {
            // Not the complete entity (the engine turns that 416 into an outcome), or an
            // FTP/SFTP file that changed or shrank since: the partial cannot be
            // continued. It goes, and the retry starts from byte 0. A failure of the
            // runner's own, like a size mismatch: the next attempt is a different
            // request, so it is worth making (the engine's 416 is permanent).
            unlink(partial)
            record.partialPath = nil
            try? checkpoints?.save(merging: record)
            let why = error.httpStatus == 416 ? "the server cannot continue the partial file from byte \(resumeFrom)" : error.message
            return JobFailure(kind: .transient, code: error.code,
                              message: "\(why); it is discarded and the download starts over", httpStatus: error.httpStatus)
        }
        // A refresh that failed before a byte arrived leaves the finished record as it
        // was: the final file is still the verified one, and the next run asks again
        // with its validators (`recordFailure` adds the error to it).
        if record.partialPath != nil || attempt.previous?.phase != .done { try? checkpoints?.save(merging: record) }
        return Self.failure(error, url: attempt.download.url, t)
    }
}
