/// What a download attempt settles before its request, and what each later step of
/// `JobRunner.download` reads: the job, its records, where its bytes go and where they
/// start.
///
/// A class, made once per attempt: the steps are async, and a struct this size would be
/// copied into each of their frames.
final class DownloadAttempt: Sendable {
    let jobID: String
    let download: Download
    /// `JobFingerprint.of(job)`: a record with another one is of an edited job.
    let fingerprint: String
    /// The job's record as loaded, of this definition or of an older one.
    let stored: JobCheckpoint?
    /// The record this attempt goes on from: `stored` when it is of this definition and
    /// `begin` found it still describes the files.
    let previous: JobCheckpoint?
    /// `<to>.xferpart` (or the folder's, when the server names the file).
    let partial: String
    /// Where the body starts in the partial: 0 for a new file, else the trusted offset
    /// that `ifRange` asks the server to continue from.
    let resumeFrom: Int64
    let ifRange: String?
    /// Asks with the stored validators (`refresh: conditional`): a 304 is up to date.
    let conditional: Bool
    /// `to` is a folder, and the server names the file (known only at the response).
    let intoFolder: Bool
    /// The folder that holds the partial and the final file.
    let folder: String

    init(jobID: String, download: Download, fingerprint: String, stored: JobCheckpoint?,
         previous: JobCheckpoint?, partial: String, resumeFrom: Int64, ifRange: String?, conditional: Bool) {
        self.jobID = jobID
        self.download = download
        self.fingerprint = fingerprint
        self.stored = stored
        self.previous = previous
        self.partial = partial
        self.resumeFrom = resumeFrom
        self.ifRange = ifRange
        self.conditional = conditional
        intoFolder = download.namesFileAtRunTime
        folder = intoFolder ? download.to : PathText.parent(download.to)
    }
}
