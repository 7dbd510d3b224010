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
///
/// The journal is two files, `path` and `path-1`, written one at a time: a group commit
/// switches appends to the other file before it writes to the store, so jobs finishing
/// meanwhile are never held up by it, and empties the first once its group is committed.
final class DoneJournal: @unchecked Sendable {
    let path: String
    /// One descriptor per segment; `active` is the one appends go to. Callers serialize
    /// `append`, `rotate` and `truncate()` (the store's lock); `truncate(_:)` may run
    /// beside appends, as it only touches the file they no longer go to.
    private let fds: [Int32]
    private var active = 0

    /// The files of the journal at `path`, oldest segment first.
    static func segments(of path: String) -> [String] { [path, path + "-1"] }

    /// Opens (creating) the journal's two files at `path`.
    init(path: String) throws {
        var fds: [Int32] = []
        for segment in Self.segments(of: path) {
            let fd = open(segment, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else {
                let failure = StateFolder.openError(segment, errno)
                fds.forEach { close($0) }
                throw failure
            }
            fds.append(fd)
        }
        self.fds = fds
        self.path = path
    }

    deinit { fds.forEach { close($0) } }

    /// Appends one finished job's line (no fsync, see the type's comment).
    ///
    /// A disk that fills up can take the start of a line and refuse the rest. Those bytes
    /// are cut off again before the error is thrown: the next line appended (once there is
    /// room) would otherwise continue the torn one, and neither would be read back.
    func append(_ line: [UInt8]) throws {
        let fd = fds[active]
        var done = 0
        while done < line.count {
            let n = line.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n > 0 {
                done += n
                continue
            }
            if n < 0, errno == EINTR { continue }
            let reason = n < 0 ? String(cString: strerror(errno)) : "the file system took no more bytes"
            if done > 0 { _ = ftruncate(fd, lseek(fd, 0, SEEK_END) - off_t(done)) }
            throw CheckpointError("cannot append to \(Self.segments(of: path)[active]): \(reason)")
        }
    }

    /// Sends later appends to the other file; returns the one they went to until now, to
    /// empty with `truncate(_:)` once its lines are committed.
    func rotate() -> Int {
        let previous = active
        active = 1 - active
        return previous
    }

    /// Empties one file once every line in it is committed.
    func truncate(_ segment: Int) { _ = ftruncate(fds[segment], 0) }

    /// Empties both files (everything is committed).
    func truncate() { fds.forEach { _ = ftruncate($0, 0) } }

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
            // As text: the parser reads numbers as `Double`, which would round nanoseconds.
            w.member("finalModified", c.finalModified.map(String.init))
            w.key("updatedAt")
            w.double(c.updatedAt)
        }
        return w.bytes + [0x0A]
    }

    /// The records to adopt: the newest complete line per job whose file is intact.
    func intactRecords() -> [JobCheckpoint] { Self.intactRecords(at: path) }

    /// The same, reading the file only (nothing is created).
    static func intactRecords(at path: String) -> [JobCheckpoint] {
        var newest: [String: JobCheckpoint] = [:]
        // The two files are not in time order: the time each line records decides.
        for record in records(at: path) where record.updatedAt >= (newest[record.jobID]?.updatedAt ?? -.infinity) {
            newest[record.jobID] = record
        }
        return newest.values.filter(isIntact).sorted { $0.jobID < $1.jobID }
    }

    /// The records of complete lines in both files (a torn last line is skipped).
    static func records(at path: String) -> [JobCheckpoint] {
        var records: [JobCheckpoint] = []
        for segment in segments(of: path) {
            guard let data = FileManager.default.contents(atPath: segment), !data.isEmpty else { continue }
            for line in data.split(separator: 0x0A) {
                guard let node = try? JSONParser.parse(Array(line)), let record = Self.record(node) else { continue }
                records.append(record)
            }
        }
        return records
    }

    /// A line's record, or nil for a line that is not one of ours as written: a number no
    /// field can hold (a bit flip, an edit by hand) rejects the line, where converting it
    /// as it is would crash every later run at start-up.
    private static func record(_ node: JSONNode) -> JobCheckpoint? {
        func text(_ key: String) -> String? { if case .string(let s)? = node[key]?.value { s } else { nil } }
        /// .some(nil) when absent or null, nil when not a whole number in range.
        func integer(_ key: String) -> Int64?? {
            switch node[key]?.value {
            case nil, .null?: return .some(nil)
            case .number(let n)?: return Int64(exactly: n).map { .some($0) }
            default: return nil
            }
        }
        func number(_ key: String) -> Double? { if case .number(let n)? = node[key]?.value { n } else { nil } }
        guard let id = text("job"), let fingerprint = text("fingerprint"), let bytes = integer("bytes") ?? nil,
              let attempts = integer("attempts"), let expectedSize = integer("expectedSize"),
              let final = text("finalPath"), let sha = text("sha256") else { return nil }
        return JobCheckpoint(jobID: id, fingerprint: fingerprint, phase: .done, attempts: Int(attempts ?? 1),
                             bytes: bytes, expectedSize: expectedSize, etag: text("etag"),
                             lastModified: text("lastModified"), bootID: text("bootID"), finalPath: final, sha256: sha,
                             updatedAt: number("updatedAt") ?? 0, finalModified: text("finalModified").flatMap { Int64($0) })
    }

    /// Whether a journal record's file is really there: the recorded size and SHA-256.
    static func isIntact(_ c: JobCheckpoint) -> Bool {
        guard let path = c.finalPath, let sha = c.sha256, DownloadStart.size(of: path) == c.bytes else { return false }
        return (try? FileDigest.sha256(ofFileAt: path)) == sha
    }
}
