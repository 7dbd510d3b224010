import Foundation
import XferCurl

extension JobRunner {
    func upload(_ job: PlannedJob, _ u: Upload, progress: TransferProgress) async throws -> AttemptResult {
        guard let t = job.transfer else { throw JobFailure(kind: .permanent, code: "plan", message: "no transfer settings") }
        var request = try self.request(u.url, t)
        request.method = u.method == .post ? .post : .put
        request.options.createMissingDirectories = u.createMissingDirectories
        var digest: String? = nil
        var sources: [String] = []
        switch u.body {
        case .file(let path):
            sources = [path]
            request.body = .file(path: path, contentType: u.contentType)
        case .multipart(let form):
            sources = form.files.map(\.path)
            request.body = .multipart(fields: form.fields.map { ($0.name, $0.value) },
                                      files: form.files.map { .init(field: $0.field, path: $0.path, filename: $0.filename, contentType: $0.contentType) })
        }
        for path in sources where !FileManager.default.isReadableFile(atPath: path) {
            throw JobFailure(kind: .local, code: "ENOENT", message: "the upload source \(path) is missing or unreadable")
        }
        // What is sent: the raw body's SHA-256, or a digest of the parts' digests.
        var digests: [String] = []
        for path in sources { digests.append(try await FileDigest.sha256Async(ofFileAt: path)) }
        digest = digests.count == 1 ? digests[0] : FileDigest.sha256(ofText: digests.joined(separator: "\n"))
        let fingerprint = JobFingerprint.of(job)
        if !forceUploads, let prev = try? checkpoints?.load(job.id), prev.fingerprint == fingerprint, prev.phase == .done, prev.sha256 == digest {
            return AttemptResult(bytes: prev.bytes, destination: u.url.redacted, sha256: digest, httpStatus: nil, upToDate: true)
        }
        let outcome: TransferOutcome
        do {
            outcome = try await transport.perform(request, progress: progress)
        } catch {
            throw Self.failure(error)
        }
        // v1 has no resumable-upload protocol: an interrupted upload starts again.
        try commit(JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .done, attempts: 1, bytes: outcome.bytesTransferred,
                                 sha256: digest, updatedAt: Date().timeIntervalSince1970))
        return AttemptResult(bytes: outcome.bytesTransferred, destination: u.url.redacted, sha256: digest,
                             httpStatus: outcome.status == 0 ? nil : outcome.status)
    }
}
