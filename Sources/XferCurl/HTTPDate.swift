#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates in their one current form, IMF-fixdate (RFC 9110 §5.6.7):
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Locale-free: the names are spelled here, not taken
/// from `strftime`, whose `%a` and `%b` follow the process's locale.
enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Seconds since the epoch of an IMF-fixdate, or nil.
    ///
    /// The text is a server's: a year outside 1...9999 (four digits, as the format writes
    /// it) is no date; `Int32.min` of them overflowed the calendar's `year - 1900`.
    static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int32(parts[1]), let year = Int32(parts[3]),
              (1...9999).contains(year) else { return nil }
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

    /// The IMF-fixdate of `seconds` since the epoch.
    static func format(_ seconds: Int64) -> String {
        var whole = time_t(seconds)
        var t = tm()
        gmtime_r(&whole, &t)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(weekdays[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }
}
