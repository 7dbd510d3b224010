import ArgumentParser
import XferBatch

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each job's state from the state folder: done, partial, failed or pending."
    )

    @OptionGroup var options: ManifestOptions
    @OptionGroup var stateOptions: StateOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let plan = try options.loadPlan()
        let rows = try JobStatus.all(plan: plan, store: stateOptions.existingStore(for: plan))
        if json {
            var w = JSONWriter(pretty: true)
            w.object { w in
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
                        }
                    }
                }
                w.key("totals")
                w.object { w in
                    for state in [JobStatus.State.done, .partial, .failed, .pending] {
                        w.key(state.rawValue)
                        w.int(rows.filter { $0.state == state }.count)
                    }
                }
            }
            StandardStreams.write(w.bytes + [0x0A])
            return
        }
        for row in rows {
            var line = "\(row.state.rawValue.padding(8)) \(row.id)"
            switch row.state {
            case .done: line += "  \(row.path ?? "")  sha256 \(row.sha256?.prefix(12) ?? "")…"
            case .partial: line += "  \(row.percent.map { "\($0)%" } ?? ByteSize.format(row.bytes))  \(row.path ?? "")"
            case .failed: line += "  \(row.lastError ?? "")"
            case .pending: if let why = row.lastError { line += "  (\(why))" }
            }
            StandardStreams.write(line + "\n")
        }
        let count = { (s: JobStatus.State) in rows.filter { $0.state == s }.count }
        StandardStreams.write("\(count(.done)) done, \(count(.partial)) partial, \(count(.failed)) failed, \(count(.pending)) pending of \(rows.count) jobs\n")
    }
}
