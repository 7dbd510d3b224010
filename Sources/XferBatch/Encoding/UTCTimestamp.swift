import Foundation

/// An RFC 3339 UTC timestamp (`2026-11-21T14:32:46Z`, or with `.123` milliseconds).
///
/// Why not `ISO8601DateFormatter`: creating one loads ICU's date-format data, about 2 ms
/// of CPU at every run's start (`perf`, a 2,000-file run), for a string `gmtime_r` gives
/// in microseconds. The output is the same for these two shapes.
enum UTCTimestamp {
    /// `date` in UTC, to the second, or to the millisecond with `milliseconds`. As
    /// Foundation does, the time is first rounded to the nearest millisecond, and the
    /// seconds-only form drops that millisecond part.
    static func string(from date: Date, milliseconds: Bool = false) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let millis = ((total % 1000) + 1000) % 1000  // 0...999, before 1970 too
        var whole = time_t((total - millis) / 1000)
        var parts = tm()
        gmtime_r(&whole, &parts)
        var text = pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
        text += "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
        if milliseconds { text += "." + pad(Int(millis), 3) }
        return text + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String { String(zeroPadded: value, width: width) }
}
