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
        // Up to date, as for downloads: the sources' sizes, inodes and modification times
        // as recorded -> nothing is read (a nightly re-run of a 10 GiB backup upload would
        // otherwise read it all to say so); otherwise their SHA-256 decides, so a source
        // only touched is still sent once.
        let stamp = FileStamp.inputs(sources.map { ($0, $0) }).digest
        let fingerprint = JobFingerprint.of(job)
        let stored = forceUploads ? nil : (try? checkpoints?.load(job.id)) ?? nil
        let done = stored.flatMap { $0.fingerprint == fingerprint && $0.phase == .done ? $0 : nil }
        if let done, done.etag == stamp {
            return AttemptResult(bytes: done.bytes, destination: u.url.redacted, sha256: done.sha256, httpStatus: nil, upToDate: true)
        }
        // What is sent: the raw body's SHA-256, or a digest of the parts' digests.
        var digests: [String] = []
        for path in sources { digests.append(try await FileDigest.sha256Async(ofFileAt: path)) }
        digest = digests.count == 1 ? digests[0] : FileDigest.sha256(ofText: digests.joined(separator: "\n"))
        if var done, done.sha256 == digest {
            done.etag = stamp
            try commit(done)
            return AttemptResult(bytes: done.bytes, destination: u.url.redacted, sha256: digest, httpStatus: nil, upToDate: true)
        }
        let outcome: TransferOutcome
        do {
            outcome = try await transport.perform(request, progress: progress)
        } catch {
            throw Self.failure(error)
        }
        // Sent while a source changed (a log still written, a file replaced): the server
        // may hold bytes of both versions, and not the content hashed above. Not recorded
        // as done; the retry sends the source again.
        guard FileStamp.inputs(sources.map { ($0, $0) }).digest == stamp else {
            throw JobFailure(kind: .transient, code: "source-changed",
                             message: "\(sources.count == 1 ? sources[0] : "a source") changed while it was being sent; it is sent again")
        }
        // v1 has no resumable-upload protocol: an interrupted upload starts again. `etag`
        // holds the sources' stamp, as for archives (see `DerivedOutput`).
        try commit(JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .done, attempts: 1, bytes: outcome.bytesTransferred,
                                 etag: stamp, sha256: digest, updatedAt: Date().timeIntervalSince1970))
        return AttemptResult(bytes: outcome.bytesTransferred, destination: u.url.redacted, sha256: digest,
                             httpStatus: outcome.status == 0 ? nil : outcome.status)
    }
}
