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
        guard let date = httpDate(text) else { return nil }
        return .seconds(max(0, date - now))
    }

    /// Seconds since the epoch of `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int32(parts[1]), let year = Int32(parts[3]) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let h = Int32(clock[0]), let m = Int32(clock[1]), let s = Int32(clock[2]) else { return nil }
        var t = tm()
        t.tm_year = year - 1900
        t.tm_mon = Int32(month)
        t.tm_mday = day
        t.tm_hour = h
        t.tm_min = m
        t.tm_sec = s
        return Int64(timegm(&t))
    }
}
