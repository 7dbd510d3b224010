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
        let entries = try entries(of: job, prefix: spec.prefix, own: spec.to)
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
        // empties and fills it through a descriptor of its own.
        let lock = open(partial, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw JobRunner.localFailure("cannot create \(partial)") }
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
        attempt.archive = ArchiveStats(entries: result.entries, bytesIn: result.bytesIn, bytesOut: result.bytesOut)
        try derived.record(attempt, file: true)
        return attempt
    }

    /// The inputs as entries: unique, named relative to `outputDir` behind `prefix`, sorted.
    /// `own`, the archive itself, is never one (as `tar` skips its own file): written
    /// inside an input folder, or matched by a glob, it would otherwise be packed into the
    /// next build, which would then never be up to date.
    private func entries(of job: PlannedJob, prefix: String, own: String) throws -> [ArchiveWriter.Entry] {
        var files: [String] = []
        for input in job.inputs {
            switch input {
            case .job(let id, _):
                guard let path = outputs.path(of: id) else {
                    throw JobFailure(kind: .permanent, code: "missing-input", message: "job \"\(id)\" produced no file in this run")
                }
                files.append(path)
            case .path(let pattern):
                if let problem = Self.unpackable(input) { throw DestinationCheck.failure(problem) }
                let matches = Self.files(of: pattern, excluding: own, skipping: runFolders)
                if let unnamed = matches.first(where: Self.hasNonUTF8Name) {
                    throw JobFailure(kind: .permanent, code: "non-utf8-name",
                                     message: "cannot pack \(unnamed): its name is not UTF-8 (\u{FFFD} stands for the bytes that are not), "
                                        + "and only UTF-8 names can be packed; rename it (convmv -f latin1 -t utf8, for example)")
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
            ArchiveWriter.Entry(name: prefix + PathText.display(path, relativeTo: outputDirectory).split(separator: "/").joined(separator: "/"),
                                sourcePath: path)
        }.sorted { $0.name < $1.name }
    }

    /// Why an input named by its path cannot be packed: a pipe, device or socket (the
    /// writer refuses those rather than wait on them); nil for a file, a folder, a glob,
    /// a job's output or a path not there yet. `plan` says it too.
    static func unpackable(_ input: JobInput) -> String? {
        guard case .path(let path) = input, !Glob.isPattern(path) else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG, type != S_IFDIR else { return nil }
        return "\(path) is \(DestinationCheck.kind(info.st_mode)), not a file; only files are packed"
    }

    /// Whether `path` came from a name the file system holds in bytes that are not UTF-8
    /// (`caf\xE9.txt` from a Latin-1 system): Foundation hands such a name over with U+FFFD
    /// in their place, a path nothing can open. Such files were skipped, and the archive was
    /// built without them and without a word.
    static func hasNonUTF8Name(_ path: String) -> Bool {
        var info = stat()
        return path.contains("\u{FFFD}") && lstat(path, &info) != 0
    }

    /// The files a path input stands for: a glob's matches, every file under a folder (as
    /// `tar` packs a folder; empty folders are not kept), or the file itself; never `own`
    /// (the archive being built), partial files, or anything in `runFolders`.
    static func files(of input: String, excluding own: String?, skipping runFolders: [String]) -> [String] {
        if Glob.isPattern(input) { return expand(input, skipping: runFolders).filter { $0 != own } }
        var info = stat()
        if stat(input, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return expand(input + "/**", skipping: runFolders).filter { $0 != own } }
        return [input]
    }

    /// Files under the pattern's fixed leading folder that match it, outside `runFolders`.
    static func expand(_ pattern: String, skipping runFolders: [String]) -> [String] {
        let fixed = Glob.fixedFolder(of: pattern)
        if runFolders.contains(where: { PathText.isWithin(fixed, folder: $0) }) { return [] }
        let glob = Glob(pattern)
        guard let walker = FileManager.default.enumerator(atPath: fixed) else { return [] }
        var matches: [String] = []
        while let relative = walker.nextObject() as? String {
            let full = fixed + "/" + relative
            if runFolders.contains(full) {
                walker.skipDescendants()
                continue
            }
            // Regular files only, as `tar` packs their content: a pipe in the folder would
            // be waited on forever, and a socket or device has no content to pack.
            var info = stat()
            guard stat(full, &info) == 0 else {
                // Kept, so that the job fails naming it (see `hasNonUTF8Name`) instead of
                // building an archive without it.
                if relative.contains("\u{FFFD}"), glob.matches(full) { matches.append(full) }
                continue
            }
            // A folder the pattern cannot reach inside (`big*.bin` and an extraction's
            // folder beside it) is not walked: it may hold many files, or be swapped by
            // an extraction the planner let run meanwhile.
            if info.st_mode & S_IFMT == S_IFDIR, !glob.canMatchInside(full) {
                walker.skipDescendants()
                continue
            }
            if info.st_mode & S_IFMT == S_IFREG,
               !full.hasSuffix(".xferpart"), !full.contains(".xferpart/"), glob.matches(full) {
                matches.append(full)
            }
        }
        return matches.sorted()
    }
}
