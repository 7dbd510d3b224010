#if canImport(Glibc)
import Glibc
#endif

/// Parses `Retry-After`: delay-seconds, or an HTTP-date (IMF-fixdate, RFC 9110 §5.6.7).
enum RetryAfter {
    /// The delay from now; a date in the past gives zero. nil when unparseable.
    static func parse(_ value: String, now: Int64 = Int64(time(nil))) -> Duration? {
        let text = value.trimming(" \t")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int64(text.prefix(12)) {
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return .seconds(max(0, date - now))
    }
}
