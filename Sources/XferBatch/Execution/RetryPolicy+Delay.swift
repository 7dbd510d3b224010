extension RetryPolicy {
    /// The delay before attempt `failedAttempt + 1`, given the failure.
    ///
    /// Full jitter (AWS's "Exponential Backoff and Jitter"): uniform in
    /// [0, min(maxDelay, initialDelay × 2^(failedAttempt-1))], with `unit` in [0, 1) drawn by
    /// the caller (so tests are deterministic). A server's `Retry-After` overrides it
    /// (the lifecycle refuses values above `maxRetryAfter`), unless it is zero: `0` or a
    /// date already past (clocks disagree) would spend every attempt in a moment.
    public func delay(afterAttempt failedAttempt: Int, retryAfter: Duration?, unit: Double) -> Duration {
        if let retryAfter, retryAfter > .zero { return min(retryAfter, maxRetryAfter) }
        let exponent = min(max(failedAttempt - 1, 0), 40)
        let ceilingMS = min(Double(DurationText.milliseconds(maxDelay)),
                            Double(DurationText.milliseconds(initialDelay)) * Double(1 << exponent))
        // In microseconds: cut to whole milliseconds, a tenth of the draws of a 10 ms
        // ceiling gave no delay at all, and a 429's host was then not held.
        return .microseconds(Int64(ceilingMS * 1000 * min(max(unit, 0), 0.999_999)))
    }
}
