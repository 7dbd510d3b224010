/// Events as JSON Lines (`--events FILE`), one object per line, documented by
/// `schemas/events.schema.json`. Times are seconds since the run started.
public struct JSONLinesEventSink: EventSink {
    private let clock: any ExecutionClock
    private let write: @Sendable ([UInt8]) -> Void

    public init(clock: any ExecutionClock, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.clock = clock
        self.write = write
    }

    public func handle(_ event: RunEvent) {
        var w = JSONWriter(capacity: 256)
        w.object { w in
            w.key("time")
            w.double(Double(DurationText.milliseconds(clock.now())) / 1000)
            switch event {
            case .runStarted(let jobs, let name, let selection):
                w.member("event", "run-started")
                w.member("jobs", jobs)
                w.member("name", name)
                Plan.Selection.write(selection, to: &w)
            case .jobStarted(let id, let attempt, let source, let destination, let resumeFrom):
                w.member("event", "job-started")
                w.member("job", id)
                w.member("attempt", attempt)
                w.member("source", source)
                w.member("destination", destination)
                w.member("resumeFrom", resumeFrom)
            case .jobRetrying(let id, let attempt, let failure, let delay):
                w.member("event", "job-retrying")
                w.member("job", id)
                w.member("attempt", attempt)
                w.member("error", failure.description)
                w.member("errorClass", failure.kind.rawValue)
                w.key("delay")
                w.double(Double(DurationText.milliseconds(delay)) / 1000)
            case .hostHeld(let host, let job, let code, let wait):
                Self.hostEvent("host-held", host: host, job: job, code: code, to: &w)
                w.key("delay")
                w.double(Double(DurationText.milliseconds(wait)) / 1000)
            case .hostLimited(let host, let job, let code, let connections):
                Self.hostEvent("host-limited", host: host, job: job, code: code, to: &w)
                w.member("connections", connections)
            case .hostGivenUp(let host, let job, let code, let jobs):
                Self.hostEvent("host-given-up", host: host, job: job, code: code, to: &w)
                w.member("jobs", jobs)
            case .jobSucceeded(let id, let bytes, let duration, let destination, let archive, let resumedFrom):
                w.member("event", "job-succeeded")
                w.member("job", id)
                w.member("bytes", bytes)
                w.member("resumedFrom", resumedFrom)
                w.key("duration")
                w.double(Double(DurationText.milliseconds(duration)) / 1000)
                w.member("destination", destination)
                if let archive {
                    w.key("archive")
                    w.object { w in archive.writeJSON(to: &w) }
                }
            case .jobUpToDate(let id, let destination):
                w.member("event", "job-up-to-date")
                w.member("job", id)
                w.member("destination", destination)
            case .jobFailed(let id, let reason, let attempts):
                w.member("event", "job-failed")
                w.member("job", id)
                w.member("reason", reason)
                w.member("attempts", attempts)
            case .jobSkipped(let id, let reason):
                w.member("event", "job-skipped")
                w.member("job", id)
                w.member("reason", reason)
            case .jobCancelled(let id, let attempts):
                w.member("event", "job-cancelled")
                w.member("job", id)
                w.member("attempts", attempts)
            case .runFinished(let s):
                w.member("event", "run-finished")
                w.member("succeeded", s.succeeded)
                w.member("failed", s.failed)
                w.member("skipped", s.skipped)
                w.member("cancelled", s.cancelled)
                w.member("notStarted", s.notStarted)
                w.member("upToDate", s.upToDate)
                w.member("bytes", s.bytes)
                w.member("interrupted", s.interrupted)
            }
        }
        write(w.bytes + [0x0A])
    }

    /// The members a host's events share: which host, the job whose answer spoke for it.
    private static func hostEvent(_ event: String, host: String, job: String, code: String, to w: inout JSONWriter) {
        w.member("event", event)
        w.member("host", host)
        w.member("job", job)
        w.member("error", code)
    }
}
