import Foundation
import XferCurl

extension JobRunner {
    func upload(_ job: PlannedJob, _ u: Upload, progress: TransferProgress) async throws -> AttemptResult {
        guard let t = job.transfer else { throw JobFailure(kind: .permanent, code: "plan", message: "no transfer settings") }
        var request = try self.request(u.url, t)
        request.method = u.method == .post ? .post : .put
        request.options.createMissingDirectories = u.createMissingDirectories
        var digest: String? = nil
        switch u.body {
        case .file(let path):
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw JobFailure(kind: .local, code: "ENOENT", message: "the upload source \(path) is missing or unreadable")
            }
            digest = try FileDigest.sha256(ofFileAt: path)
            request.body = .file(path: path, contentType: u.contentType)
        case .multipart(let form):
            request.body = .multipart(fields: form.fields.map { ($0.name, $0.value) },
                                      files: form.files.map { .init(field: $0.field, path: $0.path, filename: $0.filename, contentType: $0.contentType) })
        }
        do {
            let outcome = try await transport.perform(request, progress: progress)
            return AttemptResult(bytes: outcome.bytesTransferred, destination: u.url.redacted, sha256: digest,
                                 httpStatus: outcome.status == 0 ? nil : outcome.status)
        } catch {
            throw Self.failure(error)
        }
    }
}
