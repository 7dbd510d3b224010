import XferCurl

/// `plan --probe`: asks the servers of downloads whose manifest gives no `size` how large
/// they are, so that the plan's disk-space check covers them.
///
/// One request per download with nothing in the body: HEAD for HTTP(S); libcurl's FTP,
/// SFTP and file transfers report the size the same way without reading the file. Within
/// `limits.concurrency` at once; the same credentials, proxy and TLS settings as a run.
/// Nothing is written. A server that does not say (no Content-Length, an error, HEAD
/// refused) leaves the size unknown, as without the probe.
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

    /// The sizes learned, by job index, for the jobs at `indices` (downloads without `size`).
    public func sizes(of indices: [Int]) async -> [Int: Int64] {
        let runner = JobRunner(transport: transport, secrets: SecretResolver(environment: environment), claims: PathClaims(plan: plan),
                               outputs: RunOutputs(), outputDirectory: plan.outputDirectory, bandwidthPerTransfer: nil,
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
        var sizes: [Int: Int64] = [:]
        await withTaskGroup(of: (Int, Int64?).self) { group in
            var pending = requests[...]
            func startNext() {
                guard let (j, request) = pending.popFirst() else { return }
                group.addTask {
                    let outcome = try? await transport.perform(request, progress: TransferProgress())
                    return (j, outcome.flatMap { (200..<300).contains($0.status) || $0.status == 0 ? $0.contentLength : nil })
                }
            }
            for _ in 0..<max(1, plan.limits.concurrency) { startNext() }
            while let (j, size) = await group.next() {
                if let size { sizes[j] = size }
                startNext()
            }
        }
        return sizes
    }
}
