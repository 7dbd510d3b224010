/// What a successful attempt produced, for events and the report.
public struct AttemptResult: Sendable, Equatable {
    /// Bytes written (downloads) or sent (uploads).
    public var bytes: Int64
    /// The final path of a download, or the redacted URL an upload went to.
    public var destination: String
    /// SHA-256 of the file written or of the raw body sent.
    public var sha256: String?
    public var httpStatus: Int?
    /// True when nothing was transferred because the work was already done.
    public var upToDate = false
    /// What an archive or extract job packed or unpacked.
    public var archive: ArchiveStats?
    /// The bytes of `bytes` an earlier run had downloaded and this attempt kept (the server
    /// answered its `Range` request with 206, or with 416 for a partial already whole);
    /// 0 when the file was fetched from its first byte.
    public var resumedFrom: Int64 = 0

    /// What this attempt moved over the network (nothing when up to date, a 304 included):
    /// its speed is this over its duration.
    public var transferred: Int64 { upToDate ? 0 : bytes - resumedFrom }
}

/// Entries and bytes of an archive job (files in, archive out) or an extract job (archive
/// in, files out), for the report.
public struct ArchiveStats: Sendable, Equatable {
    /// A path under an archive's input folder that was not packed, having no content: a
    /// named pipe, a socket, a device, a symbolic link to nothing (`ArchiveInputs`).
    public struct PassedOver: Sendable, Equatable {
        /// As the archive would have named it (relative to `outputDir`).
        public var path: String
        /// `a named pipe`, `a socket`, …
        public var kind: String
    }

    public var entries: Int
    public var bytesIn: Int64
    public var bytesOut: Int64
    /// An archive job's paths passed over, sorted; empty for an extract job.
    public var passedOver: [PassedOver] = []

    /// Output bytes per input byte (below 1 when an archive compresses).
    public var ratio: Double? { bytesIn > 0 ? Double(bytesOut) / Double(bytesIn) : nil }
}

extension ArchiveStats {
    /// `entries`, `bytesIn`, `bytesOut`, `ratio` and, when not empty, `passedOver` as
    /// members of the open object.
    func writeJSON(to w: inout JSONWriter) {
        w.member("entries", entries)
        w.member("bytesIn", bytesIn)
        w.member("bytesOut", bytesOut)
        w.key("ratio")
        if let ratio { w.double((ratio * 10_000).rounded() / 10_000) } else { w.null() }
        guard !passedOver.isEmpty else { return }
        w.key("passedOver")
        w.array { w in
            for item in passedOver {
                w.object { w in
                    w.member("path", item.path)
                    w.member("kind", item.kind)
                }
            }
        }
    }
}
