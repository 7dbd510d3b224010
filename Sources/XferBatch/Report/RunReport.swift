import Foundation

/// The run report (`--report FILE.json`), documented by `schemas/report.schema.json`.
///
/// Sources and destinations are redacted; secrets never appear (the report is built from
/// the plan, which holds only environment-variable names).
public struct RunReport {
    public let result: RunResult
    public let plan: Plan
    /// SHA-256 of the manifest file, to tell runs of different manifests apart.
    public let manifestFingerprint: String
    public let startedAt: Date

    public init(result: RunResult, plan: Plan, manifestFingerprint: String, startedAt: Date) {
        self.result = result
        self.plan = plan
        self.manifestFingerprint = manifestFingerprint
        self.startedAt = startedAt
    }

    public func json() -> [UInt8] {
        let seconds = { (d: Duration) -> Double in Double(DurationText.milliseconds(d)) / 1000 }
        var w = JSONWriter(pretty: true, capacity: 4096 + result.jobs.count * 600)
        w.object { w in
            w.member("formatVersion", 1)
            w.member("manifest", plan.manifestPath)
            w.member("manifestSHA256", manifestFingerprint)
            w.member("name", plan.name)
            w.member("startedAt", UTCTimestamp.string(from: startedAt, milliseconds: true))
            w.member("endedAt", UTCTimestamp.string(from: startedAt.addingTimeInterval(seconds(result.endedAt - result.startedAt)), milliseconds: true))
            w.key("durationSeconds")
            w.double(seconds(result.endedAt - result.startedAt))
            w.member("interrupted", result.summary.interrupted)
            w.key("summary")
            w.object { w in
                let s = result.summary
                w.member("jobs", s.total)
                w.member("succeeded", s.succeeded)
                w.member("upToDate", s.upToDate)
                w.member("failed", s.failed)
                w.member("skipped", s.skipped)
                w.member("cancelled", s.cancelled)
                w.member("notStarted", s.notStarted)
                w.member("bytes", s.bytes)
            }
            Plan.Selection.write(plan.selection, to: &w)
            w.key("jobs")
            w.array { w in
                for job in result.jobs { write(job, to: &w, seconds: seconds) }
            }
        }
        return w.bytes + [0x0A]
    }

    private func write(_ job: RunResult.Job, to w: inout JSONWriter, seconds: (Duration) -> Double) {
        let lc = job.lifecycle
        w.object { w in
            w.member("id", job.planned.id)
            w.member("kind", job.planned.kind.rawValue)
            w.member("source", job.planned.source)
            w.member("destination", job.result?.destination ?? job.planned.destination)
            w.member("status", lc.state.name)
            w.member("reason", lc.reason)
            w.member("httpStatus", job.result?.httpStatus.map(Int64.init))
            w.member("bytes", job.result?.bytes)
            w.member("resumedFrom", job.result?.resumedFrom)
            let first = lc.attempts.first?.startedAt
            let last = lc.attempts.last?.endedAt
            w.key("durationSeconds")
            if let first, let last { w.double(seconds(last - first)) } else { w.null() }
            w.key("bytesPerSecond")
            // Of what this run moved: none for a job up to date (a 304 too), not the whole
            // file for a resumed one.
            if let result = job.result, !result.upToDate, let first, let last, last > first {
                w.double((Double(result.transferred) / seconds(last - first)).rounded())
            } else {
                w.null()
            }
            w.member("sha256", job.result?.sha256)
            if let archive = job.result?.archive {
                w.key("archive")
                w.object { w in archive.writeJSON(to: &w) }
            }
            w.key("attempts")
            w.array { w in
                for attempt in lc.attempts {
                    w.object { w in
                        w.member("number", attempt.number)
                        w.key("startSeconds")
                        w.double(seconds(attempt.startedAt - result.startedAt))
                        w.key("endSeconds")
                        if let end = attempt.endedAt { w.double(seconds(end - result.startedAt)) } else { w.null() }
                        w.member("error", attempt.failure?.description)
                        w.member("errorClass", attempt.failure?.kind.rawValue)
                        w.member("httpStatus", attempt.failure?.httpStatus.map(Int64.init))
                        w.key("delayBeforeNextSeconds")
                        if let d = attempt.delayBeforeNext { w.double(seconds(d)) } else { w.null() }
                    }
                }
            }
        }
    }
}
