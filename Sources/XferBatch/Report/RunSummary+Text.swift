extension RunResult {
    /// Failures listed one per line in the summary; the rest are counted.
    static let listedFailures = 20

    /// The closing summary for people: counts by status, bytes, wall time, and each
    /// failure with its last error.
    public func summaryText() -> String {
        let s = summary
        var parts = ["\(s.succeeded) succeeded"]
        if s.upToDate > 0 { parts.append("\(s.upToDate) up-to-date") }
        if s.failed > 0 { parts.append("\(s.failed) failed") }
        if s.skipped > 0 { parts.append("\(s.skipped) skipped") }
        if s.cancelled > 0 { parts.append("\(s.cancelled) cancelled") }
        if s.notStarted > 0 { parts.append("\(s.notStarted) not started") }
        // Two decimals, as the event lines give them: "in 0.0s" read as a rounding slip.
        let seconds = PlainTextEventSink.seconds(s.duration).trimmingLeadingSpaces
        var text = "\(s.interrupted ? "Interrupted" : "Done"): \(parts.joined(separator: ", ")) of \(s.total) jobs; "
        text += "\(ByteSize.format(s.bytes)) in \(seconds)\n"
        // A bounded list: a run of thousands of jobs against a server that is down must
        // not print thousands of lines (the report has them all).
        let failed = jobs.filter { $0.lifecycle.state == .failed }
        for job in failed.prefix(Self.listedFailures) {
            text += "  failed  \(job.planned.id): \(job.lifecycle.reason ?? "failed")\n"
        }
        if failed.count > Self.listedFailures { text += "  ... and \(failed.count - Self.listedFailures) more failed (the report lists every job)\n" }
        let skipped = jobs.filter { $0.lifecycle.state == .skipped }
        for job in skipped.prefix(10) {
            text += "  skipped \(job.planned.id): \(job.lifecycle.reason ?? "skipped")\n"
        }
        if skipped.count > 10 { text += "  ... and \(skipped.count - 10) more skipped\n" }
        if s.interrupted {
            text += "  Run the same command again to finish: partial downloads resume where they stopped.\n"
        }
        return text
    }
}
