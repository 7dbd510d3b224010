extension TransferURL {
    /// Where a transfer goes, as the per-host limit counts it: a host and its port.
    ///
    /// A key of its own, not the `host:port` text, because the scheduler numbers every
    /// job's host at the start of a run: spelling that text cost about 650 instructions a
    /// job. The text (`hostKey`) names the host in messages.
    public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
        public let host: String
        public let port: Int?

        public var description: String { port.map { "\(host):\($0)" } ?? host }
    }

    /// This URL's endpoint; `file:` and `data:` URLs, which have no host, share one named
    /// "local" (the per-host limit applies to them together).
    public var endpoint: Endpoint {
        guard let host else { return Endpoint(host: "local", port: nil) }
        return Endpoint(host: host, port: port)
    }

    /// `host:port` (or the host alone), as messages name the endpoint.
    public var hostKey: String { endpoint.description }
}
