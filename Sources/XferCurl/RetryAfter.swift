#if canImport(Glibc)
import Glibc
#endif

/// Parses `Retry-After`: delay-seconds, or an HTTP-date (IMF-fixdate, RFC 9110 §5.6.7).
enum RetryAfter {
    /// The delay from now; a date in the past gives zero. nil when unparseable.
    ///
    /// A date is the server's clock, so it is measured against the response's own `Date`
    /// (`serverDate`) when there is one, and against ours only without: a server whose clock
    /// is a few minutes behind ours would otherwise ask for a time already past, and each
    /// retry would follow at once, spending the attempts while the server still asks to wait.
    static func parse(_ value: String, serverDate: String? = nil, now: Int64 = Int64(time(nil))) -> Duration? {
        let text = value.trimming(" \t")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int64(text.prefix(12)) {
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let base = serverDate.flatMap { HTTPDate.parse($0.trimming(" \t")) } ?? now
        return .seconds(max(0, date - base))
    }
}
