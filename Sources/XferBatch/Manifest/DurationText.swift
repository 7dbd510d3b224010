/// Strict parsing and printing of durations as manifests write them: `250ms`, `30s`, `5m`, `1h`.
///
/// Strict means one whole number and one unit, no spaces, no fractions, nothing else:
/// `"30"` or `"1.5s"` are errors, because a silently misread timeout is worse than a refusal.
public enum DurationText {
    private static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000),
    ]

    /// The duration, or nil when `text` is not `<digits><ms|s|m|h>`.
    public static func parse(_ text: String) -> Duration? {
        for unit in units where text.hasSuffix(unit.suffix) {
            let digits = text.dropLast(unit.suffix.count)
            // "5ms" also ends in "s": the digit check rejects "5m" + "s" readings.
            guard !digits.isEmpty, digits.count <= 12, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let n = Int64(digits) else { continue }
            return .milliseconds(n * unit.milliseconds)
        }
        return nil
    }

    /// The shortest exact spelling: 90s -> `90s`, 3600s -> `1h`, 0.5s -> `500ms`.
    public static func format(_ duration: Duration) -> String {
        let ms = milliseconds(duration)
        if ms == 0 { return "0s" }
        for unit in units.reversed() where ms % unit.milliseconds == 0 {
            return "\(ms / unit.milliseconds)\(unit.suffix)"
        }
        return "\(ms)ms"
    }

    /// Whole milliseconds in `duration` (truncated).
    public static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
