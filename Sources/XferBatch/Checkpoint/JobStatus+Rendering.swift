/// `xferbatch status` output: a line per job and a totals line, or one JSON document.
/// Kept beside `JobStatus` (not in the executable) so that the text and the JSON count
/// the same totals and can be tested without a process.
extension JobStatus {
    /// The states in the order the totals list them.
    public static let reportedStates: [State] = [.done, .partial, .failed, .pending]

    /// How many rows are in each state.
    public static func totals(_ rows: [JobStatus]) -> [State: Int] {
        var counts: [State: Int] = [:]
        for row in rows { counts[row.state, default: 0] += 1 }
        return counts
    }

    /// Ids up to this many columns wide are padded to the longest, so that what follows
    /// them lines up; a longer one would push every line out for its sake.
    static let alignedIdColumns = 32

    /// One line per job, then `N done, N partial, N failed, N pending of N jobs`, then
    /// a line about records of jobs no longer in the manifest, if any. `runUnderWay`: who
    /// holds the state folder's lock (`RunLock.holder`), said first, since the states are
    /// then only what that run has recorded so far.
    public static func text(_ rows: [JobStatus], stale: [StaleRecord] = [], runUnderWay: String? = nil) -> String {
        var out = runUnderWay.map { "a run is under way (\($0)); the states below are what it has recorded so far\n" } ?? ""
        let idColumns = rows.lazy.map { DisplayWidth.of($0.id) }.filter { $0 <= alignedIdColumns }.max() ?? 0
        for row in rows {
            var tail = ""
            switch row.state {
            case .done:
                // An upload has no path here, an extraction's folder no SHA-256.
                if let archive = row.packedInto { tail += "  packed into \(archive)" } else if let path = row.path { tail += "  \(path)" }
                if let sha256 = row.sha256 { tail += "  sha256 \(sha256.prefix(12))…" }
            case .partial: tail = "  \(row.percent.map { "\($0)%" } ?? ByteSize.format(row.bytes))  \(row.path ?? "")"
            case .failed: tail = "  \(row.lastError ?? "")"
            case .pending: if let why = row.reason { tail = "  (\(why))" }
            }
            // Padded only when something follows, and not past its width (a longer id stays whole).
            let id = tail.isEmpty || DisplayWidth.of(row.id) > idColumns ? row.id : DisplayWidth.fitted(row.id, columns: idColumns)
            out += "\(row.state.rawValue.padding(8)) \(id)\(tail)\n"
        }
        let counts = totals(rows)
        let parts = reportedStates.map { "\(counts[$0] ?? 0) \($0.rawValue)" }
        return out + parts.joined(separator: ", ") + " of \(rows.count) jobs\n" + (StaleRecord.summary(stale) ?? "")
    }

    /// `{"formatVersion": 1, "runUnderWay": null, "jobs": [...], "totals": {"done": N, ...},
    /// "stale": [...]}`, pretty-printed, with a final newline, as `schemas/status.schema.json`
    /// documents it. `stale`: records of jobs no longer in the manifest; `runUnderWay`: as
    /// for `text`.
    public static func json(_ rows: [JobStatus], stale: [StaleRecord] = [], runUnderWay: String? = nil) -> [UInt8] {
        var w = JSONWriter(pretty: true)
        w.object { w in
            w.member("formatVersion", 1)
            w.member("runUnderWay", runUnderWay)
            w.key("jobs")
            w.array { w in
                for row in rows {
                    w.object { w in
                        w.member("id", row.id)
                        w.member("state", row.state.rawValue)
                        w.member("path", row.path)
                        w.member("sha256", row.sha256)
                        w.member("bytes", row.bytes)
                        w.member("expectedBytes", row.expected)
                        w.member("lastError", row.lastError)
                        w.member("reason", row.reason)
                        if let archive = row.packedInto { w.member("packedInto", archive) }
                    }
                }
            }
            w.key("totals")
            let counts = totals(rows)
            w.object { w in
                for state in reportedStates {
                    w.key(state.rawValue)
                    w.int(counts[state] ?? 0)
                }
            }
            w.key("stale")
            w.array { w in
                for record in stale {
                    w.object { w in
                        w.member("id", record.id)
                        w.member("partialPath", record.partialPath)
                        w.member("partialBytes", record.partialBytes)
                    }
                }
            }
        }
        return w.bytes + [0x0A]
    }
}
