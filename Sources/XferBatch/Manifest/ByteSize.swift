/// Strict parsing and printing of byte sizes: `512KiB`, `10MB`, `1GiB`, `1.5GiB`.
///
/// Decimal units (kB/KB, MB, GB, TB) are powers of 1000, binary units (KiB, MiB, GiB, TiB)
/// powers of 1024, as in IEC 80000-13; `B` is bytes. A unit is required in text form
/// (a bare JSON integer already means bytes).
public enum ByteSize {
    private static let units: [(suffix: String, factor: Double)] = [
        ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("TiB", 1_099_511_627_776),
        ("kB", 1e3), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12), ("B", 1),
    ]

    /// Bytes, or nil when `text` is not `<number><unit>` or is not a whole number of bytes.
    public static func parse(_ text: String) -> Int64? {
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count)
            guard !number.isEmpty, number.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") }),
                  number.first != ".", number.last != ".", number.utf8.filter({ $0 == UInt8(ascii: ".") }).count <= 1,
                  let value = Double(number) else { return nil }
            let bytes = value * unit.factor
            guard bytes < 9.0e18, bytes == bytes.rounded() else { return nil }
            return Int64(bytes)
        }
        return nil
    }

    /// Human-readable binary size: `0 B`, `512 B`, `1.5 KiB`, `133.5 MiB`.
    public static func format(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let names = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(bytes) / 1024
        var i = 0
        while value >= 1024, i < names.count - 1 {
            value /= 1024
            i += 1
        }
        let tenths = (value * 10).rounded() / 10
        let text = tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
        return "\(text) \(names[i])"
    }

    /// Two sizes to be read side by side, printed so that different values never read the
    /// same: when `format` rounds both to one text (a download that "needs 7.6 MiB" where
    /// "7.6 MiB is free"), both are given in bytes instead.
    public static func format(_ a: Int64, beside b: Int64) -> (String, String) {
        let (x, y) = (format(a), format(b))
        guard x == y, a != b else { return (x, y) }
        return (grouped(a) + " bytes", grouped(b) + " bytes")
    }

    /// `8000000` as `8,000,000`.
    static func grouped(_ n: Int64) -> String {
        var digits = Array(String(n.magnitude))
        var i = digits.count - 3
        while i > 0 {
            digits.insert(",", at: i)
            i -= 3
        }
        return (n < 0 ? "-" : "") + String(digits)
    }

    /// Bytes per second from `50MiB/s`; nil unless the text ends in `/s`.
    public static func parseRate(_ text: String) -> Int64? {
        guard text.hasSuffix("/s") else { return nil }
        return parse(String(text.dropLast(2)))
    }
}
