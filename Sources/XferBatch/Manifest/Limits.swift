/// Run-wide limits; they hold at every instant of a run.
public struct Limits: Sendable, Equatable {
    /// Default number of transfers at once.
    public static let defaultConcurrency = 8
    /// Default number of transfers at once to one host.
    public static let defaultPerHost = 4

    public var concurrency: Int
    public var perHost: Int
    /// Aggregate bandwidth cap in bytes per second, in each direction; nil means unlimited.
    /// Divided among the transfers running at each moment, by what each can use (see
    /// `SharedBandwidth`): together they keep to it, a transfer left alone may use all of it.
    public var bandwidth: Int64?

    public init(concurrency: Int = Limits.defaultConcurrency, perHost: Int = Limits.defaultPerHost, bandwidth: Int64? = nil) {
        self.concurrency = concurrency
        self.perHost = perHost
        self.bandwidth = bandwidth
    }
}
