import XferCurl

/// One plain line per job event, for CI logs and cron mail: no control characters, no
/// colours, a timestamp relative to the start of the run.
///
///     [  0.41s] start    kernel (attempt 1): https://example.org/linux.tar.xz -> out/linux.tar.xz
///     [  2.03s] retry    kernel in 1.2s: HTTP 503: the server answered 503
///     [  9.87s] done     kernel 133.5 MiB in 9.4s (14.2 MiB/s)
public struct PlainTextEventSink: EventSink {
    private let clock: any ExecutionClock
    private let write: @Sendable (String) -> Void

    public init(clock: any ExecutionClock, write: @escaping @Sendable (String) -> Void) {
        self.clock = clock
        self.write = write
    }

    public func handle(_ event: RunEvent) {
        let stamp = "[\(Self.seconds(clock.now()))]"
        switch event {
        case .runStarted(let jobs, let name, let selection):
            let selected = selection.map { " (\(FoldedList.text($0.named)) and what \($0.named.count == 1 ? "it needs" : "they need"), of \($0.manifestJobs))" } ?? ""
            write("\(stamp) run      \(name.map { "\"\($0)\"" } ?? "manifest"): \(jobs) job\(jobs == 1 ? "" : "s")\(selected)\n")
        case .jobStarted(let id, let attempt, let source, let destination, let resumeFrom):
            let resuming = resumeFrom > 0 ? ", resuming at \(ByteSize.format(resumeFrom))" : ""
            write("\(stamp) start    \(id) (attempt \(attempt)): \(source) -> \(destination)\(resuming)\n")
        case .jobRetrying(let id, _, let failure, let delay):
            write("\(stamp) retry    \(id) in \(Self.seconds(delay).trimmingLeadingSpaces): \(Self.clean(failure.description))\n")
        case .hostHeld(let host, let job, let code, let wait):
            write("\(stamp) hold     \(host) for \(Self.seconds(wait).trimmingLeadingSpaces): its answer to \(job) (\(Self.clean(code))) asked for a pause; "
                + "no job starts there until then\n")
        case .hostLimited(let host, let job, let code, let connections):
            write("\(stamp) limit    \(host) to \(connections) at once: it refused \(job) one more connection (\(Self.clean(code)))\n")
        case .hostGivenUp(let host, let job, let code, let jobs):
            write("\(stamp) give up  \(host): it answered none of \(jobs) jobs in a row (the last, \(job): \(Self.clean(code))); "
                + "its jobs not started are skipped\n")
        case .jobSucceeded(let id, let bytes, let duration, _, let archive, let resumedFrom):
            let entries = archive.map { ", \($0.entries) entr\($0.entries == 1 ? "y" : "ies") from \(ByteSize.format($0.bytesIn))" } ?? ""
            // The speed is that of the bytes this attempt fetched, not of the whole file.
            let resumed = resumedFrom > 0 ? "; resumed at \(ByteSize.format(resumedFrom))" : ""
            write("\(stamp) done     \(id) \(ByteSize.format(bytes)) in \(Self.seconds(duration).trimmingLeadingSpaces) "
                + "(\(Self.rate(bytes - resumedFrom, duration))\(entries)\(resumed))\(Self.passedOver(archive?.passedOver ?? []))\n")
        case .jobUpToDate(let id, let destination):
            write("\(stamp) ok       \(id) is up to date: \(destination)\n")
        case .jobFailed(let id, let reason, let attempts):
            write("\(stamp) FAILED   \(id) after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(Self.clean(reason))\n")
        case .jobSkipped(let id, let reason):
            write("\(stamp) skipped  \(id): \(Self.clean(reason))\n")
        case .jobCancelled(let id, let attempts):
            // Jobs that never started get no line each: the closing summary counts them.
            if attempts > 0 { write("\(stamp) stopped  \(id): interrupted\n") }
        case .runFinished:
            break  // the closing summary is printed by the command
        }
    }

    /// An archive's paths passed over for having no content, the first few named:
    /// `; passed over (no content): data/pipe, a named pipe; data/sock, a socket`.
    static func passedOver(_ items: [ArchiveStats.PassedOver]) -> String {
        guard !items.isEmpty else { return "" }
        let shown = items.prefix(3).map { "\(clean($0.path)), \($0.kind)" }.joined(separator: "; ")
        return "; passed over (no content): \(shown)" + (items.count > 3 ? "; and \(items.count - 3) more (the report lists them)" : "")
    }

    /// `  1.23s`, right-aligned to 7 characters.
    public static func seconds(_ d: Duration) -> String {
        let ms = DurationText.milliseconds(d)
        let text = "\(ms / 1000).\(String(zeroPadded: Int(ms % 1000) / 10, width: 2))s"
        return String(repeating: " ", count: max(0, 7 - text.count)) + text
    }

    /// `bytes` over `d` at the duration's full precision: a small file fetched in 0.3 ms
    /// is 52 MiB/s, where whole milliseconds made it 15.6 (one, at least) and a 1.9 ms one
    /// twice as fast as it was. Durations under a microsecond count as one.
    static func rate(_ bytes: Int64, _ d: Duration) -> String {
        let (whole, atto) = d.components
        let seconds = max(1e-6, Double(whole) + Double(atto) / 1e18)
        return ByteSize.format(Int64((Double(bytes) / seconds).rounded())) + "/s"
    }

    /// Control characters (from server messages) become spaces: logs stay one line each.
    static func clean(_ text: String) -> String {
        ControlCharacters.spaced(text)
    }
}

extension String {
    var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
