import Foundation
import XferCurl

extension JobRunner {
    func download(_ job: PlannedJob, _ d: Download, progress: TransferProgress) async throws -> AttemptResult {
        guard let t = job.transfer else { throw JobFailure(kind: .permanent, code: "plan", message: "no transfer settings") }
        let intoFolder = d.namesFileAtRunTime
        let folder = intoFolder ? d.to : (d.to as NSString).deletingLastPathComponent
        let partial = intoFolder ? folder + ".\(job.id).xferpart" : d.to + ".xferpart"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw JobFailure(kind: .local, code: "mkdir", message: "cannot create the folder \(folder): \(error.localizedDescription)")
        }
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.localFailure("cannot create \(partial)") }
        var request = try self.request(d.url, t)
        request.destination = .file(descriptor: fd, offset: 0)
        let outcome: TransferOutcome
        do {
            outcome = try await transport.perform(request, progress: progress)
            close(fd)
        } catch {
            close(fd)  // the partial file stays: a re-run may continue it
            throw Self.failure(error)
        }
        if let size = d.size, outcome.bytesTransferred != size {
            throw JobFailure(kind: .transient, code: "size-mismatch",
                             message: "received \(outcome.bytesTransferred) bytes, the manifest says \(size)")
        }
        let digest = try FileDigest.sha256(ofFileAt: partial)
        if let expected = d.sha256, digest != expected {
            throw JobFailure(kind: .transient, code: "checksum-mismatch",
                             message: "SHA-256 is \(digest), the manifest says \(expected); the download is discarded")
        }
        var final = d.to
        if intoFolder {
            final = folder + FileNaming.name(contentDisposition: outcome.contentDisposition, finalURL: outcome.effectiveURL, jobID: job.id)
            if let owner = claims.claim(final, for: job.id) {
                throw JobFailure(kind: .permanent, code: "name-taken",
                                 message: "the server named the file \(PathText.lastComponent(final)), which job \"\(owner)\" already wrote")
            }
        }
        guard rename(partial, final) == 0 else { throw Self.localFailure("cannot move the download into place at \(final)") }
        return AttemptResult(bytes: outcome.bytesTransferred, destination: final, sha256: digest,
                             httpStatus: outcome.status == 0 ? nil : outcome.status)
    }
}
