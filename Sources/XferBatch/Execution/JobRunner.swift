import Foundation
import XferCurl

/// Performs one attempt of one job through the `Transport`, with the file handling
/// around it: partial files, verification, the atomic rename into place.
///
/// Invariant: a final path only ever receives a complete, verified file, by `rename(2)`
/// from `<destination>.xferpart` in the same folder.
///
/// Attempts run on the transfer engine's thread (`Executor.run`): anything that could take
/// long (hashing a large file, archiving, `fdatasync`) goes to a thread of its own.
struct JobRunner: Sendable {
    /// The lane this runner's attempts transfer on (`Executor`: one runner per lane, sharing the rest).
    var transport: any Transport
    let secrets: SecretResolver
    let claims: PathClaims
    let outputs: RunOutputs
    let folders = KnownFolders()
    /// The space downloads under way still need, shared by every attempt of the run.
    let space = SpaceReservations()
    /// Each download's last wrong SHA-256, shared by its attempts (see `ChecksumMismatches`).
    let mismatches = ChecksumMismatches()
    let outputDirectory: String
    /// `limits.bandwidth`, shared by every transfer of the run (nil: unlimited).
    let bandwidth: SharedBandwidth?
    /// Where progress is recorded between runs; nil keeps no state.
    let checkpoints: (any CheckpointStore)?
    /// Send uploads again even when their source is unchanged.
    let forceUploads: Bool
    /// Downloads a standing `removeSources` archive holds, and those archives: up to date
    /// without their files (decided once, before the run).
    var packed = PackedSources()
    /// Finished downloads and uploads recorded under the id a job had before it was renamed.
    var renamed = RenamedJobs()
    /// How often a resumable download's partial is flushed and its length recorded as
    /// durable (nil: never; a reboot then restarts partial downloads).
    var durableInterval: Duration? = nil
    /// Folders no archive packs (`Plan.runFolders`).
    var runFolders: [String] = []
    let userAgent = "xferbatch/\(XferBatchVersion.current)"

    /// One attempt; `began` is called once it is decided that the job is not up to date
    /// and its work starts (see `StartAnnouncement`).
    func attempt(_ job: PlannedJob, progress: TransferProgress, began: StartAnnouncement) async -> Result<AttemptResult, JobFailure> {
        let result = await perform(job, progress: progress, began: began)
        if case .failure(let failure) = result { recordFailure(failure, of: job) }
        return result
    }

    private func perform(_ job: PlannedJob, progress: TransferProgress, began: StartAnnouncement) async -> Result<AttemptResult, JobFailure> {
        do {
            switch job.action {
            case .download(let download): return .success(try await self.download(job, download, progress: progress, began: began))
            case .upload(let upload): return .success(try await self.upload(job, upload, progress: progress, began: began))
            case .archive:
                let runner = ArchiveRunner(outputs: outputs, outputDirectory: outputDirectory, checkpoints: checkpoints,
                                           runFolders: runFolders, standing: packed.archives.contains(job.id))
                return .success(try await BlockingWork.run { try runner.build(job, progress: progress, began: began, cancellation: $0) })
            case .extract:
                let runner = ExtractRunner(outputs: outputs, checkpoints: checkpoints)
                return .success(try await BlockingWork.run { try runner.extract(job, progress: progress, began: began, cancellation: $0) })
            }
        } catch let failure as JobFailure {
            return .failure(failure)
        } catch let failure as Folders.CreationError {
            return .failure(JobFailure(failure))
        } catch {
            return .failure(JobFailure(kind: .local, code: "error", message: "\(error)"))
        }
    }

    /// Connection settings shared by downloads and uploads.
    func request(_ url: TransferURL, _ t: EffectiveTransfer) throws(JobFailure) -> TransferRequest {
        var options = TransferRequest.Options(connectTimeout: t.connectTimeout, totalTimeout: t.totalTimeout,
                                              stallTimeout: t.stallTimeout, caFile: t.caFile, insecure: t.insecure,
                                              proxy: t.proxy, sshKnownHosts: t.knownHosts, sshPrivateKey: t.privateKey,
                                              userAgent: userAgent)
        options.maxRedirects = TransferRequest.Options.defaultMaxRedirects
        options.allowInsecureRedirects = t.allowHttpRedirects
        options.bandwidth = bandwidth
        options.requireFTPTLS = t.explicitFTPS
        if let name = t.passphraseEnv { options.sshKeyPassphrase = try secrets.value(name) }
        options.clientCertificate = t.clientCert
        options.clientKey = t.clientKey
        if let name = t.keyPassphraseEnv { options.clientKeyPassphrase = try secrets.value(name) }
        let headers = try secrets.headers(t.headers)
        var request = TransferRequest(url: url.string, headers: headers.all, auth: try secrets.auth(t.auth, for: url), options: options)
        request.originBoundHeaders = headers.secret
        request.secretTexts = url.secretTexts
        return request
    }

    static func failure(_ error: TransferError) -> JobFailure {
        let kind: JobFailure.Kind = switch error.kind {
        case .transient: .transient
        case .permanent: .permanent
        case .local: .local
        case .cancelled: .cancelled
        }
        var message = error.message
        // libcurl's words say what is wrong, not which manifest setting helps.
        if error.code == "CURLE_PEER_FAILED_VERIFICATION" {
            message += " (tls.caFile names the certificate of a CA to trust, such as a private one; tls.insecure skips the check)"
        }
        if error.code == "CURLE_SSL_CERTPROBLEM" {
            message += " (tls.clientCert and tls.clientKey name PEM files; tls.keyPassphraseEnv the variable holding an encrypted key's passphrase)"
        }
        return JobFailure(kind: kind, code: error.code, message: message, httpStatus: error.httpStatus, retryAfter: error.retryAfter)
    }

    /// `failure(error)`, with the hints that need the transfer's URL and settings, where
    /// libcurl's words name the symptom but not the manifest setting that helps:
    /// - a login refused over plain FTP is, more often than not, a server that wants TLS
    ///   first (libcurl says only `Access denied: 530`);
    /// - an upload refused at its folder (`createsFolders` false): an FTP server refuses to
    ///   change into a missing one, SFTP says "no such file" (and keeps "access denied" for
    ///   what it means);
    /// - an upload whose URL names an existing folder: FTP refuses the file name (553),
    ///   SFTP says only "Operation failed" (libssh2's catch-all).
    static func failure(_ error: TransferError, url: TransferURL, _ t: EffectiveTransfer, createsFolders: Bool? = nil) -> JobFailure {
        var failure = failure(error)
        if error.code == "CURLE_LOGIN_DENIED", url.scheme == "ftp", !t.explicitFTPS {
            failure.message += " (a server that requires TLS refuses a login in clear: \"tls\": {\"explicitFTPS\": true} uses it)"
        }
        let missingFolder = url.scheme == "sftp" ? ["CURLE_REMOTE_FILE_NOT_FOUND"] : ["CURLE_REMOTE_ACCESS_DENIED", "CURLE_REMOTE_FILE_NOT_FOUND"]
        if createsFolders == false, url.isFTPOrSFTP, missingFolder.contains(error.code) {
            failure.message += " (if the folder does not exist, \"createMissingDirs\": true creates it)"
        }
        let refusedName = (url.scheme == "sftp" && error.code == "CURLE_SSH" && error.message.hasPrefix("Upload failed"))
            || (url.scheme != "sftp" && error.code == "CURLE_UPLOAD_FAILED")
        if createsFolders != nil, url.isFTPOrSFTP, refusedName {
            failure.message += " (if the URL names a folder, end it with / to upload into it under the file's own name)"
        }
        return failure
    }

    static func localFailure(_ what: String) -> JobFailure {
        let err = errno
        return JobFailure(kind: .local, code: ErrnoName.name(err), message: "\(what): \(String(cString: strerror(err)))")
    }
}
