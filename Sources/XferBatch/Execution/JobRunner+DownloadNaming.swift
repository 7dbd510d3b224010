import Foundation
import XferCurl

extension JobRunner {
    /// The final path of a download into a folder, named from the response
    /// (`Content-Disposition`, else the final URL, else the job id): refused when another
    /// job or the manifest claims that path, when it is not usable, or when a file this job
    /// did not write is already there.
    func nameAtRunTime(_ outcome: TransferOutcome, _ attempt: DownloadAttempt) throws -> String {
        let job = attempt.jobID
        let final = attempt.folder + FileNaming.name(contentDisposition: outcome.contentDisposition, finalURL: outcome.effectiveURL,
                                                     jobID: job, secrets: attempt.download.url.secretTexts)
        if let owner = claims.claim(final, for: job) {
            let whose = switch owner {
            case .job(let id): "which job \"\(id)\" also writes"
            case .manifest: "which is the manifest"
            }
            throw JobFailure(kind: .permanent, code: "name-taken",
                             message: "the server named the file \(PathText.lastComponent(final)), \(whose)")
        }
        if let problem = DestinationCheck.problem(at: final, folderHint: "the server named the file after it") {
            throw DestinationCheck.failure(problem)
        }
        // A file there that this job did not write (the user's own, another tool's) is
        // never replaced by one the server named, as `curl -OJ` refuses to: its name
        // is the server's choice, not the manifest's.
        var there = stat()
        if attempt.stored?.finalPath != final, lstat(final, &there) == 0 {
            unlink(attempt.partial)
            throw JobFailure(kind: .permanent, code: "name-taken",
                             message: "the server named the file \(PathText.lastComponent(final)), and \(final) is already there, not written by this job; "
                                 + "move it away, or give \"to\" a file name")
        }
        return final
    }
}
