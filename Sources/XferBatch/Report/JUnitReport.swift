import XferCurl

/// The run as JUnit XML (`--junit FILE.xml`): one test case per job, so CI systems show
/// transfers as test results. Failed jobs are failures, skipped and cancelled ones skipped.
public struct JUnitReport {
    public let result: RunResult
    public let plan: Plan

    public init(result: RunResult, plan: Plan) {
        self.result = result
        self.plan = plan
    }

    public func xml() -> String {
        let s = result.summary
        let seconds = { (d: Duration) -> String in String(Double(DurationText.milliseconds(d)) / 1000) }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"xferbatch\" tests=\"\(s.total)\" failures=\"\(s.failed)\" skipped=\"\(s.skipped + s.cancelled + s.notStarted)\" time=\"\(seconds(s.duration))\">\n"
        out += "  <testsuite name=\"\(Self.escape(plan.name ?? plan.manifestPath))\" tests=\"\(s.total)\" failures=\"\(s.failed)\" skipped=\"\(s.skipped + s.cancelled + s.notStarted)\" time=\"\(seconds(s.duration))\">\n"
        for job in result.jobs {
            let lc = job.lifecycle
            let time = lc.attempts.first.flatMap { first in lc.attempts.last?.endedAt.map { $0 - first.startedAt } } ?? .zero
            out += "    <testcase classname=\"\(job.planned.kind.rawValue)\" name=\"\(Self.escape(job.planned.id))\" time=\"\(seconds(time))\">\n"
            switch lc.state {
            case .failed:
                let reason = Self.escape(lc.reason ?? "failed")
                out += "      <failure message=\"\(reason)\" type=\"\(lc.attempts.last?.failure?.kind.rawValue ?? "failed")\">\(reason)</failure>\n"
            case .skipped, .cancelled:
                out += "      <skipped message=\"\(Self.escape(lc.reason ?? lc.state.name))\"/>\n"
            default:
                break
            }
            out += "      <system-out>\(Self.escape("\(job.planned.source) -> \(job.result?.destination ?? job.planned.destination), \(lc.attempts.count) attempt(s)"))</system-out>\n"
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    /// XML text and attribute escaping; control characters are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if ControlCharacters.contains(scalar) && scalar != "\n" && scalar != "\t" { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
