import Foundation

/// An append-only log of jobs finished since the last group commit, one JSON line each.
///
/// Why it exists: committing each finished job to SQLite was the largest cost of a run of
/// small files (GRDB's queue hop, a transaction, WAL writes and file locks per job, about a
/// fifth of the CPU in `perf`). Finished jobs are now committed in groups, and each is
/// appended here with one `write(2)` right after its file is renamed into place (a crash
/// between the two costs one download again, never a record of a file that is not there).
/// After a process death (`kill -9`, OOM) the kernel still holds these lines, so the next
/// run re-derives the records a group commit had not written yet: a line is adopted only if
/// its final file is there with the recorded size *and* SHA-256 (re-read, so that nothing
/// but the file the line describes is ever adopted). A torn last line is ignored. After a
/// power loss the journal may be lost with the unflushed WAL: those jobs are simply
/// downloaded again, never trusted blindly.
final class DoneJournal: @unchecked Sendable {
    let path: String
    private let fd: Int32

    /// Opens (creating) the journal at `path` and returns the records it holds.
    init(path: String) throws {
        fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CheckpointError("cannot open \(path): \(String(cString: strerror(errno)))") }
        self.path = path
    }

    deinit { close(fd) }

    /// Appends one finished job's line (one `write(2)`; no fsync, see the type's comment).
    func append(_ line: [UInt8]) throws {
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw CheckpointError("cannot record progress in \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The journal line of a finished job, newline included. Encoded apart from `append`
    /// so that callers can do it before taking the lock that orders appends.
    static func line(for c: JobCheckpoint) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.object { w in
            w.member("job", c.jobID)
            w.member("fingerprint", c.fingerprint)
            w.member("attempts", c.attempts)
            w.member("bytes", c.bytes)
            w.member("expectedSize", c.expectedSize)
            w.member("etag", c.etag)
            w.member("lastModified", c.lastModified)
            w.member("bootID", c.bootID)
            w.member("finalPath", c.finalPath)
            w.member("sha256", c.sha256)
            w.key("updatedAt")
            w.double(c.updatedAt)
        }
        return w.bytes + [0x0A]
    }

    /// Empties the journal once its records are committed.
    func truncate() { _ = ftruncate(fd, 0) }

    /// The records to adopt: the newest complete line per job whose file is intact.
    func intactRecords() -> [JobCheckpoint] { Self.intactRecords(at: path) }

    /// The same, reading the file only (nothing is created).
    static func intactRecords(at path: String) -> [JobCheckpoint] {
        var newest: [String: JobCheckpoint] = [:]
        for record in records(at: path) { newest[record.jobID] = record }
        return newest.values.filter(isIntact).sorted { $0.jobID < $1.jobID }
    }

    /// The records of complete lines, oldest first (a torn last line is skipped).
    static func records(at path: String) -> [JobCheckpoint] {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return [] }
        var records: [JobCheckpoint] = []
        for line in data.split(separator: 0x0A) {
            guard let node = try? JSONParser.parse(Array(line)), let record = Self.record(node) else { continue }
            records.append(record)
        }
        return records
    }

    private static func record(_ node: JSONNode) -> JobCheckpoint? {
        func text(_ key: String) -> String? { if case .string(let s)? = node[key]?.value { s } else { nil } }
        func number(_ key: String) -> Double? { if case .number(let n)? = node[key]?.value { n } else { nil } }
        guard let id = text("job"), let fingerprint = text("fingerprint"), let bytes = number("bytes"),
              let final = text("finalPath"), let sha = text("sha256") else { return nil }
        return JobCheckpoint(jobID: id, fingerprint: fingerprint, phase: .done, attempts: Int(number("attempts") ?? 1),
                             bytes: Int64(bytes), expectedSize: number("expectedSize").map { Int64($0) }, etag: text("etag"),
                             lastModified: text("lastModified"), bootID: text("bootID"), finalPath: final, sha256: sha,
                             updatedAt: number("updatedAt") ?? 0)
    }

    /// Whether a journal record's file is really there: the recorded size and SHA-256.
    static func isIntact(_ c: JobCheckpoint) -> Bool {
        guard let path = c.finalPath, let sha = c.sha256, DownloadStart.size(of: path) == c.bytes else { return false }
        return (try? FileDigest.sha256(ofFileAt: path)) == sha
    }
}
