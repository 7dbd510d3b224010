import Foundation
import XferArchive
import XferCurl

/// Unpacks an extract job's archive through `XferArchive`, into `<to>.xferpart/` first,
/// and records the result; redone only when the archive file changed.
struct ExtractRunner {
    let outputs: RunOutputs
    let checkpoints: (any CheckpointStore)?

    func extract(_ job: PlannedJob, progress: TransferProgress, began: StartAnnouncement,
                 cancellation: BlockingWork.Cancellation) throws -> AttemptResult {
        guard case .extract(let spec) = job.action, case .job(let sourceID, _)? = job.inputs.first else {
            throw JobFailure(kind: .permanent, code: "plan", message: "not an extract job")
        }
        guard let archive = outputs.path(of: sourceID) else {
            throw JobFailure(kind: .permanent, code: "missing-input", message: "job \"\(sourceID)\" produced no file in this run")
        }
        let derived = DerivedOutput(job: job, files: [(archive, archive)], checkpoints: checkpoints)
        if let previous = derived.upToDate(stillThere: { _, path in Self.isFolder(path) }) { return previous }
        began()

        let target = spec.folder
        if let problem = DestinationCheck.folderProblem(at: target) { throw DestinationCheck.failure(problem) }
        try Folders.create(PathText.parent(target))
        // A folder this job extracted before is replaced whole; any other may only hold
        // files the archive has (someone else's would be deleted).
        let previous = (try? checkpoints?.load(job.id)) ?? nil
        let ownFolder = previous?.hasExtracted(spec) == true
        let options = ExtractionOptions(stripComponents: spec.stripComponents, maxBytes: spec.maxBytes, maxEntries: spec.maxEntries,
                                        replacesFolder: ownFolder)
        let result: ExtractionResult
        do {
            result = try ArchiveExtractor.extract(archiveAt: archive, format: spec.format,
                                                  to: target, staging: spec.stagingFolder, options: options) { written in
                progress.update(done: written, expected: nil)
                return !cancellation.isCancelled
            }
        } catch {
            throw Self.failure(error, archive: archive, source: sourceID)
        }
        var attempt = AttemptResult(bytes: result.bytesOut, destination: spec.to, sha256: nil, httpStatus: nil)
        attempt.archive = ArchiveStats(entries: result.entries, bytesIn: result.bytesIn, bytesOut: result.bytesOut)
        try derived.record(attempt, file: false)
        return attempt
    }

    /// Unsafe or over-limit archives and unreadable ones fail for good (the same file
    /// would fail again); local I/O errors are local. An unreadable archive that holds
    /// text says what (a login page served instead of the artifact, see `ContentSniff`);
    /// one that is damaged (cut short: a server that closed early without announcing a
    /// length) says how to be rid of it, since `source`, done, is up to date on every run.
    static func failure(_ error: ExtractionError, archive: String, source: String) -> JobFailure {
        switch error {
        case .unsafeEntry: JobFailure(kind: .permanent, code: "unsafe-archive", message: error.description)
        case .tooManyEntries, .tooManyBytes: JobFailure(kind: .permanent, code: "archive-limit", message: error.description)
        case .unreadable:
            JobFailure(kind: .permanent, code: "archive-unreadable", message: error.description + (ContentSniff.describe(fileAt: archive).map {
                "; the file holds \($0), not an archive: was it downloaded with the right URL and credentials?"
            } ?? "; if job \"\(source)\" left a damaged file, `xferbatch reset MANIFEST \(source)` makes the next run fetch or build it again "
                + "(a sha256 in the manifest catches a damaged download)"))
        case .cancelled: JobFailure(kind: .cancelled, code: "cancelled", message: "cancelled")
        case .io(_, let code, _): JobFailure(kind: .local, code: ErrnoName.name(code), message: error.description)
        case .foreignFiles: JobFailure(kind: .permanent, code: "foreign-files", message: error.description)
        case .encrypted: JobFailure(kind: .permanent, code: "archive-encrypted", message: error.description)
        }
    }

    static func isFolder(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }
}
