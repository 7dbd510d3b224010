/// How often and how patiently a failing transfer is tried again.
///
/// Parameters only; which failures are worth a retry is decided by the error's class
/// (see `TransferError`), never here. Delays use exponential backoff with full jitter:
/// before attempt n+1 the delay is uniform in [0, min(maxDelay, initialDelay * 2^(n-1))],
/// and a server's `Retry-After` is honoured up to `maxRetryAfter`.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in total, the first included.
    public static let defaultAttempts = 5
    public static let defaultInitialDelay: Duration = .milliseconds(500)
    public static let defaultMaxDelay: Duration = .seconds(30)
    /// Longest `Retry-After` obeyed; a server asking for more fails the attempt for good.
    public static let defaultMaxRetryAfter: Duration = .seconds(300)

    public var attempts: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    public var maxRetryAfter: Duration

    public init(attempts: Int = RetryPolicy.defaultAttempts, initialDelay: Duration = RetryPolicy.defaultInitialDelay,
                maxDelay: Duration = RetryPolicy.defaultMaxDelay, maxRetryAfter: Duration = RetryPolicy.defaultMaxRetryAfter) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The manifest's settings with absent fields taken from the named defaults.
    public init(_ settings: RetrySettings) {
        self.init(attempts: settings.attempts ?? Self.defaultAttempts,
                  initialDelay: settings.initialDelay ?? Self.defaultInitialDelay,
                  maxDelay: settings.maxDelay ?? Self.defaultMaxDelay,
                  maxRetryAfter: settings.maxRetryAfter ?? Self.defaultMaxRetryAfter)
    }
}
