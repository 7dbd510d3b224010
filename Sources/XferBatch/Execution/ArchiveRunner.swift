import Foundation
import XferArchive
import XferCurl

/// Builds an archive job's file from its inputs, through `XferArchive`.
///
/// Entry names are relative to `outputDir` (or the file name, for inputs outside it) and
/// sorted; the archive is written to `<to>.xferpart` and renamed into place when complete.
/// Rebuilt only when an input changed (see `DerivedOutput`).
struct ArchiveRunner {
    let outputs: RunOutputs
    let outputDirectory: String
    let checkpoints: (any CheckpointStore)?
    /// Folders never packed (`Plan.runFolders`).
    let runFolders: [String]
    /// Built before from sources it removed, and unchanged since (see `PackedSources`):
    /// up to date, though its inputs are gone.
    var standing = false

    func build(_ job: PlannedJob, progress: TransferProgress, began: StartAnnouncement,
               cancellation: BlockingWork.Cancellation) throws -> AttemptResult {
        guard case .archive(let spec) = job.action else { throw JobFailure(kind: .permanent, code: "plan", message: "not an archive job") }
        if standing, let previous = (try? checkpoints?.load(job.id)) ?? nil {
            return AttemptResult(bytes: previous.bytes, destination: spec.to, sha256: previous.sha256, httpStatus: nil, upToDate: true)
        }
        var passedOver: [ArchiveStats.PassedOver] = []
        let entries = try entries(of: job, prefix: spec.prefix, own: spec.to) { path, kind in
            passedOver.append(ArchiveStats.PassedOver(path: PathText.display(path, relativeTo: outputDirectory), kind: kind))
        }
        let derived = DerivedOutput(job: job, files: entries.map { ($0.name, $0.sourcePath) }, checkpoints: checkpoints)
        // Rebuilt when the archive is not the one recorded: another size, or another
        // modification time (edited or replaced since; a record without one: size only).
        if let previous = derived.upToDate(stillThere: { checkpoint, path in checkpoint.describesFile(at: path) }) {
            return previous
        }
        began()
        if let problem = DestinationCheck.problem(at: spec.to, folderHint: DestinationCheck.archiveHint) {
            throw DestinationCheck.failure(problem)
        }
        let partial = spec.partialPath
        try Folders.create(PathText.parent(spec.to))
        // Locked until the archive is renamed into place (see `PartialLock`); the writer
        // empties and fills it through a descriptor of its own. Never a link or a FIFO
        // found at its name (see `PartialFile`).
        let lock: Int32
        do {
            lock = try PartialFile.open(partial, resumeFrom: 0).fd
        } catch {
            throw error.jobFailure(partial: partial)
        }
        try PartialLock.take(lock, partial: partial)
        defer { close(lock) }
        let result: ArchiveWriter.Result
        let digest = FileDigest.Background()
        do {
            result = try ArchiveWriter.write(entries, to: partial, format: spec.format,
                                             level: spec.level, reproducible: spec.reproducible, observe: digest.update) { read in
                progress.update(done: read, expected: derived.inputBytes)
                return !cancellation.isCancelled
            }
        } catch {
            _ = digest.finalize()
            unlink(partial)
            if error.isCancellation { throw JobFailure(kind: .cancelled, code: "cancelled", message: "cancelled") }
            throw JobFailure(kind: .local, code: "archive", message: error.description)
        }
        let sha256 = digest.finalize()
        guard rename(partial, spec.to) == 0 else { throw JobRunner.localFailure("cannot move the archive into place at \(spec.to)") }
        if spec.removeSources { for entry in entries { unlink(entry.sourcePath) } }
        var attempt = AttemptResult(bytes: result.bytesOut, destination: spec.to, sha256: sha256, httpStatus: nil)
        attempt.archive = ArchiveStats(entries: result.entries, bytesIn: result.bytesIn, bytesOut: result.bytesOut,
                                       passedOver: passedOver.sorted { $0.path < $1.path })
        try derived.record(attempt, file: true)
        return attempt
    }

    /// The inputs as entries: unique, named relative to `outputDir` behind `prefix`, sorted.
    /// `own`, the archive itself, is never one (as `tar` skips its own file): written
    /// inside an input folder, or matched by a glob, it would otherwise be packed into the
    /// next build, which would then never be up to date.
    private func entries(of job: PlannedJob, prefix: String, own: String,
                         passOver: (_ path: String, _ kind: String) -> Void) throws -> [ArchiveWriter.Entry] {
        try Self.inputFiles(of: job, prefix: prefix, own: own, outputDirectory: outputDirectory, runFolders: runFolders,
                            output: outputs.path(of:), passOver: passOver).map { ArchiveWriter.Entry(name: $0.name, sourcePath: $0.path) }
    }

    /// Each input file of an archive job, with its name in the archive (see `entries`);
    /// `output` gives the file a job named as an input produced (this run's, or for `plan`
    /// the one its record names).
    static func inputFiles(of job: PlannedJob, prefix: String, own: String, outputDirectory: String, runFolders: [String],
                           output: (String) -> String?,
                           passOver: (_ path: String, _ kind: String) -> Void = { _, _ in }) throws(JobFailure) -> [(name: String, path: String)] {
        var files: [String] = []
        for input in job.inputs {
            switch input {
            case .job(let id, _):
                guard let path = output(id) else {
                    throw JobFailure(kind: .permanent, code: "missing-input", message: "job \"\(id)\" produced no file in this run")
                }
                files.append(path)
            case .path(let pattern):
                if let problem = ArchiveInputs.unpackable(input) { throw DestinationCheck.failure(problem) }
                let matches = try ArchiveInputs.files(of: pattern, excluding: own, skipping: runFolders, besides: job.packedPaths, passOver: passOver)
                if let missing = ArchiveInputs.missing(pattern) {
                    throw JobFailure(kind: .permanent, code: "missing-input", message: missing)
                }
                if matches.isEmpty {
                    throw JobFailure(kind: .permanent, code: "missing-input",
                                     message: Glob.isPattern(pattern) ? "nothing matches \(pattern)" : "the folder \(pattern) holds no files")
                }
                files += matches
            }
        }
        var seen = Set<String>()
        return files.filter { seen.insert($0).inserted }.map { path in
            (name: prefix + PathText.display(path, relativeTo: outputDirectory).split(separator: "/").joined(separator: "/"), path: path)
        }.sorted { $0.name < $1.name }
    }
}
