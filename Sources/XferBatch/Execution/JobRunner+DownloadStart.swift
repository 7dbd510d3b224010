import Foundation

extension JobRunner {
    /// How a download attempt begins (`DownloadStart.decide`), and the record it goes on
    /// from, once the files a stamp cannot judge are hashed:
    /// - `.changed` (done, but modified since): the recorded SHA-256 -> still the download,
    ///   the new time recorded; another -> `.fresh`, and the record no longer applies;
    /// - `.existing` (not recorded, a file is there): the manifest's SHA-256 -> adopted as
    ///   done and returned as `.upToDate`; another -> `.fresh`.
    func begin(_ job: PlannedJob, _ d: Download, partial: String, fingerprint: String,
               previous: JobCheckpoint?) async throws -> (DownloadStart, JobCheckpoint?) {
        let start = DownloadStart.decide(d, partialPath: partial, previous: previous, boot: BootID.current)
        switch start {
        case .changed(let final):
            guard var prev = previous, let sha = prev.sha256, (try? await FileDigest.sha256Async(ofFileAt: final)) == sha else {
                // Not what was downloaded: fetched again, and renamed over it. The finished
                // record no longer describes the file, so a failure now replaces it.
                return (.fresh, nil)
            }
            // Only touched, or rewritten with the same bytes: still the download.
            prev.finalModified = FileStamp.of(final)?.modified
            try commit(prev)
            return (DownloadStart.decide(d, partialPath: partial, previous: prev, boot: BootID.current), prev)
        case .existing(let final):
            guard let sha = d.sha256, let stamp = FileStamp.of(final), (try? await FileDigest.sha256Async(ofFileAt: final)) == sha else {
                return (.fresh, previous)  // another file: the download replaces it
            }
            // Already the download: recorded as done, as if this run had fetched it.
            let adopted = JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .done, attempts: previous?.attempts ?? 0,
                                        bytes: stamp.size, expectedSize: d.size, finalPath: final, sha256: sha,
                                        updatedAt: Date().timeIntervalSince1970, finalModified: stamp.modified)
            try commit(adopted, finishedFile: true)
            return (.upToDate(finalPath: final), adopted)
        case .upToDate, .conditional, .resume, .fresh:
            return (start, previous)
        }
    }
}
