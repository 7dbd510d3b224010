import Foundation
import XferCurl

extension JobRunner {
    func upload(_ job: PlannedJob, _ u: Upload, progress: TransferProgress, began: StartAnnouncement) async throws -> AttemptResult {
        guard let t = job.transfer else { throw JobFailure(kind: .permanent, code: "plan", message: "no transfer settings") }
        var request = try self.request(u.url, t)
        request.method = u.method == .post ? .post : .put
        request.options.createMissingDirectories = u.createMissingDirectories
        if u.storesUnderTemporaryName { request.options.partialUploadSuffix = PathText.partialSuffix }
        request.options.answerTimeout = t.answerTimeout
        let sources: [String]
        switch u.body {
        case .file(let path):
            sources = [path]
            request.body = .file(path: path, contentType: u.contentType)
        case .multipart(let form):
            sources = form.files.map(\.path)
            request.body = .multipart(fields: form.fields.map { ($0.name, $0.value) },
                                      files: form.files.map { .init(field: $0.field, path: $0.path, filename: $0.filename, contentType: $0.contentType) })
            // A server that quotes the form back in an error must not show a secret field.
            request.secretTexts += form.fields.filter { $0.shown != $0.value && !$0.value.isEmpty }.map(\.value)
        }
        for path in sources {
            if let problem = Self.sourceProblem(path) { throw JobFailure(kind: .local, code: problem.code, message: problem.message) }
        }
        if let problem = LocalFileURL.problem(u.url) { throw DestinationCheck.failure(problem) }
        // Up to date, as for downloads: the sources' sizes, inodes and modification times
        // as recorded -> nothing is read (a nightly re-run of a 10 GiB backup upload would
        // otherwise read it all to say so); otherwise their SHA-256 decides, so a source
        // only touched is still sent once.
        let stamp = FileStamp.sources(sources)
        let fingerprint = JobFingerprint.of(job)
        let stored = forceUploads ? nil : ((try? checkpoints?.load(job.id)) ?? nil) ?? renamed.records[job.id]
        let done = stored.flatMap { $0.fingerprint == fingerprint && $0.phase == .done ? $0 : nil }
        if let done, done.etag == stamp {
            // Recorded under the job's old id (see `RenamedJobs`): now under this one.
            if renamed.records[job.id] == done { try commit(done) }
            return AttemptResult(bytes: done.bytes, destination: u.url.redacted, sha256: done.sha256, httpStatus: nil, upToDate: true)
        }
        began()
        // A POST the server may have acted on is not sent again unless it says it may be.
        let once = u.isSentOnce
        let digest: String
        let outcome: TransferOutcome
        if var done {
            // Sent before, and a source's stamp changed since: its content decides.
            digest = try await Self.digest(of: sources)
            if done.sha256 == digest {
                done.etag = stamp
                try commit(done)
                return AttemptResult(bytes: done.bytes, destination: u.url.redacted, sha256: digest, httpStatus: nil, upToDate: true)
            }
            outcome = try await send(request, to: u.url, t, progress: progress, once: once)
        } else {
            // Nothing to compare with: hashed while it is sent (large files on a thread of
            // their own, from the page cache), not before; the stamp check below makes
            // sure what was hashed is what was sent. A 1 GiB source then costs one read's
            // time, not two.
            async let hashed = Self.digest(of: sources)
            outcome = try await send(request, to: u.url, t, progress: progress, once: once)
            digest = try await hashed
        }
        // Sent while a source changed (a log still written, a file replaced): the server
        // may hold bytes of both versions, and not the content hashed above. Not recorded
        // as done; the retry sends the source again.
        guard FileStamp.sources(sources) == stamp else {
            let what = "\(sources.count == 1 ? sources[0] : "a source") changed while it was being sent"
            let changed = JobFailure(kind: .transient, code: TransferError.sourceChanged, message: what + (once ? "" : "; it is sent again"))
            throw once ? Self.notRetriedPOST(changed) : changed
        }
        // v1 has no resumable-upload protocol: an interrupted upload starts again. `etag`
        // holds the sources' stamp, as for archives (see `DerivedOutput`).
        try commit(JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .done, attempts: 1, bytes: outcome.bytesTransferred,
                                 etag: stamp, sha256: digest, updatedAt: Date().timeIntervalSince1970))
        return AttemptResult(bytes: outcome.bytesTransferred, destination: u.url.redacted, sha256: digest,
                             httpStatus: outcome.status == 0 ? nil : outcome.status)
    }

    /// Why `path` cannot be sent as an upload's body, or nil. A folder is named as such
    /// (its read failed later with a bare EISDIR); so is a pipe or device (`/dev/stdin`
    /// fed by `producer | xferbatch run`), whose size of 0 was announced and sent as the
    /// whole body, and a success recorded; `plan` reports both.
    static func sourceProblem(_ path: String) -> (code: String, message: String)? {
        var info = stat()
        guard stat(path, &info) == 0, access(path, R_OK) == 0 else {
            // `"from": "logs/*.log"`: a name with wildcards is taken as it is written.
            let wildcards = path.contains { "*?[".contains($0) }
                ? "; an upload sends the one file it names, wildcards are not expanded (an archive job packs a glob's files into one)" : ""
            return ("ENOENT", "the upload source \(path) is missing or unreadable" + wildcards)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return ("EISDIR", "the upload source \(path) is a folder; send a file (an archive job can pack the folder)")
        default:
            return (DestinationCheck.failureCode, "the upload source \(path) is \(DestinationCheck.kind(info.st_mode)), not a file: its size cannot be announced "
                + "before sending, nor can it be read again for a retry; write it to a file first")
        }
    }


    /// What an upload sends, as recorded: the raw body's SHA-256, or a digest of the parts' digests.
    private static func digest(of sources: [String]) async throws -> String {
        var digests: [String] = []
        for path in sources { digests.append(try await FileDigest.sha256Async(ofFileAt: path)) }
        return digests.count == 1 ? digests[0] : FileDigest.sha256(ofText: digests.joined(separator: "\n"))
    }

    private func send(_ request: TransferRequest, to url: TransferURL, _ transfer: EffectiveTransfer,
                      progress: TransferProgress, once: Bool) async throws(JobFailure) -> TransferOutcome {
        do {
            return try await transport.perform(request, progress: progress)
        } catch {
            var failure = Self.failure(error, url: url, transfer, createsFolders: request.options.createMissingDirectories)
            if request.options.partialUploadSuffix != nil, failure.code == "CURLE_QUOTE_ERROR" {
                failure.message += "; \"inPlace\": true stores the file straight under its final name, for a server that refuses renames"
            }
            throw once ? Self.notRetriedPOST(failure) : failure
        }
    }

    /// A POST's failure, made final when the server may have received the request: a POST
    /// is not idempotent (RFC 9110, 9.2.2), and sending it again could create a second
    /// record, send a second message, start a second build. As Alamofire's and urllib3's
    /// retry policies, which leave POST out of the methods they retry. Still retried:
    /// failures before the request could reach the server (no address, no connection, a
    /// TLS handshake cut short) and answers refusing it as a whole (429, 503: nothing was
    /// done, try later). `"idempotent": true` retries the rest too.
    static func notRetriedPOST(_ failure: JobFailure) -> JobFailure {
        guard failure.kind == .transient,
              !TransferError.neverReachedServer(code: failure.code, message: failure.message, httpStatus: failure.httpStatus) else { return failure }
        var final = failure
        final.kind = .permanent
        final.message += "; not retried: the server may have received this POST and could act on it twice (\"idempotent\": true retries it)"
        return final
    }
}
