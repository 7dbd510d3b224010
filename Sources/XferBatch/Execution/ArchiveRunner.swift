import Foundation
import XferArchive

/// Builds an archive job's file from its inputs, through `XferArchive`.
///
/// Entry names are relative to `outputDir` (or the file name, for inputs outside it) and
/// sorted; the archive is written to `<to>.xferpart` and renamed into place when complete.
struct ArchiveRunner {
    let outputs: RunOutputs
    let outputDirectory: String
    let checkpoints: (any CheckpointStore)?

    func build(_ job: PlannedJob) throws -> AttemptResult {
        guard case .archive(let spec) = job.action else { throw JobFailure(kind: .permanent, code: "plan", message: "not an archive job") }
        var files: [String] = []
        for input in job.archiveInputs {
            switch input {
            case .job(let id, _):
                guard let path = outputs.path(of: id) else {
                    throw JobFailure(kind: .permanent, code: "missing-input", message: "job \"\(id)\" produced no file in this run")
                }
                files.append(path)
            case .path(let pattern):
                let matches = Glob.isPattern(pattern) ? Self.expand(pattern) : [pattern]
                if matches.isEmpty { throw JobFailure(kind: .permanent, code: "missing-input", message: "nothing matches \(pattern)") }
                files += matches
            }
        }
        var seen = Set<String>()
        let entries = files.filter { seen.insert($0).inserted }.map { path in
            ArchiveWriter.Entry(name: spec.prefix + PathText.display(path, relativeTo: outputDirectory).split(separator: "/").joined(separator: "/"),
                                sourcePath: path)
        }.sorted { $0.name < $1.name }
        // Rebuilt only when an input changed: the inputs' names, sizes and modification
        // times are digested into the checkpoint (in its `etag` field).
        let fingerprint = JobFingerprint.of(job)
        let inputs = FileDigest.sha256(ofText: entries.map { e in
            let info = try? FileManager.default.attributesOfItem(atPath: e.sourcePath)
            let size = (info?[.size] as? NSNumber)?.int64Value ?? -1
            let mtime = (info?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(e.name)\u{1F}\(size)\u{1F}\(mtime)"
        }.joined(separator: "\n"))
        if let prev = try? checkpoints?.load(job.id), prev.fingerprint == fingerprint, prev.phase == .done, prev.etag == inputs,
           let final = prev.finalPath, DownloadStart.size(of: final) == prev.bytes {
            return AttemptResult(bytes: prev.bytes, destination: final, sha256: prev.sha256, httpStatus: nil, upToDate: true)
        }
        let partial = spec.to + ".xferpart"
        try FileManager.default.createDirectory(atPath: (spec.to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let result: ArchiveWriter.Result
        do {
            result = try ArchiveWriter.write(entries, to: partial, format: ArchiveFileFormat(rawValue: spec.format.rawValue) ?? .tar,
                                             level: spec.level, reproducible: spec.reproducible)
        } catch {
            unlink(partial)
            throw JobFailure(kind: .local, code: "archive", message: error.description)
        }
        guard rename(partial, spec.to) == 0 else { throw JobRunner.localFailure("cannot move the archive into place at \(spec.to)") }
        if spec.removeSources { for entry in entries { unlink(entry.sourcePath) } }
        let digest = try FileDigest.sha256(ofFileAt: spec.to)
        try checkpoints?.save(JobCheckpoint(jobID: job.id, fingerprint: fingerprint, phase: .done, attempts: 1, bytes: result.bytesOut,
                                            etag: inputs, finalPath: spec.to, sha256: digest, updatedAt: Date().timeIntervalSince1970))
        return AttemptResult(bytes: result.bytesOut, destination: spec.to, sha256: digest, httpStatus: nil)
    }

    /// Files under the pattern's fixed leading folder that match it.
    static func expand(_ pattern: String) -> [String] {
        let components = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let fixed = components.prefix { !$0.contains("*") && !$0.contains("?") }.joined(separator: "/")
        let glob = Glob(pattern)
        guard let walker = FileManager.default.enumerator(atPath: fixed) else { return [] }
        var matches: [String] = []
        while let relative = walker.nextObject() as? String {
            let full = fixed + "/" + relative
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue,
               !full.hasSuffix(".xferpart"), glob.matches(full) {
                matches.append(full)
            }
        }
        return matches.sorted()
    }
}
