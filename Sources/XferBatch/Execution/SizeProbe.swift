import XferCurl

/// `plan --probe`: asks the servers of downloads whose manifest gives no `size` how large
/// they are, so that the plan's disk-space check covers them.
///
/// One request per download with nothing in the body: HEAD for HTTP(S); libcurl's FTP,
/// SFTP and file transfers report the size the same way without reading the file. Within
/// `limits.concurrency` at once; the same credentials, proxy and TLS settings as a run.
/// Nothing is written. A server that does not say (no Content-Length, HEAD not allowed)
/// leaves the size unknown, as without the probe, and the plan says why; a failure (a
/// 404, a refused connection) becomes a warning on the job (`ProbeAnswer`).
public struct SizeProbe: Sendable {
    let plan: Plan
    let transport: any Transport
    let environment: [String: String]

    public init(plan: Plan, transport: any Transport, environment: [String: String]) {
        self.plan = plan
        self.transport = transport
        self.environment = environment
    }

    /// How long one question may take.
    static let timeout: Duration = .seconds(15)

    /// What each server said, by job index, for the jobs at `indices` (downloads without
    /// `size`); nothing for a job whose request could not be made.
    public func answers(for indices: [Int]) async -> [Int: ProbeAnswer] {
        let runner = JobRunner(transport: transport, secrets: SecretResolver(environment: environment), claims: PathClaims(plan: plan),
                               outputs: RunOutputs(plan: plan), outputDirectory: plan.outputDirectory, bandwidth: nil,
                               checkpoints: nil, forceUploads: false)
        let requests: [(Int, TransferRequest)] = indices.compactMap { j in
            guard case .download(let d) = plan.jobs[j].action, d.size == nil, d.url.scheme != "data",
                  let t = plan.jobs[j].transfer, var request = try? runner.request(d.url, t) else { return nil }
            request.method = .head
            // A dry run should not wait a stall timeout (a minute by default) on a server
            // that does not answer: its size just stays unknown.
            request.options.totalTimeout = min(request.options.totalTimeout ?? Self.timeout, Self.timeout)
            return (j, request)
        }
        var answers: [Int: ProbeAnswer] = [:]
        await withTaskGroup(of: (Int, ProbeAnswer?).self) { group in
            var pending = requests[...]
            func startNext() {
                guard let (j, request) = pending.popFirst() else { return }
                group.addTask {
                    do throws(TransferError) {
                        return (j, Self.answer(try await transport.perform(request, progress: TransferProgress())))
                    } catch {
                        return (j, Self.answer(error))
                    }
                }
            }
            for _ in 0..<max(1, plan.limits.concurrency) { startNext() }
            while let (j, answer) = await group.next() {
                if let answer { answers[j] = answer }
                startNext()
            }
        }
        return answers
    }

    /// A transfer that completed: its size if the server gave one. (A status outside
    /// 2xx that did not fail the transfer, such as a 304, gives no size either.)
    static func answer(_ outcome: TransferOutcome) -> ProbeAnswer {
        guard (200..<300).contains(outcome.status) || outcome.status == 0 else {
            return .sizeUnknown(why: "the server answered \(outcome.status)")
        }
        guard let length = outcome.contentLength else { return .sizeUnknown(why: "the server gave no length") }
        return .size(length)
    }

    /// A failed probe: HEAD not allowed is no problem (the size stays unknown); anything
    /// else is a failure a run may meet too; an interrupted probe says nothing.
    static func answer(_ error: TransferError) -> ProbeAnswer? {
        switch error.kind {
        case .cancelled: return nil
        case _ where error.httpStatus == 405 || error.httpStatus == 501:
            return .sizeUnknown(why: "the server does not allow HEAD: \(error.httpStatus ?? 0)")
        default: return .failed(error.description, retried: error.isTransient)
        }
    }
}
