/// The bytes a JSON string cannot hold as they are: control characters, `"` and `\`. The
/// writer escapes them, the parser stops at them; both look for them eight bytes at a
/// time, as nearly every string of a manifest or a plan (ids, paths, URLs) has none.
/// Byte by byte, the search was a fifth of writing a plan.
///
/// For a word `x`, `(x - n·0x0101…) & ~x & 0x8080…` is nonzero exactly when some byte of
/// `x` is below `n` (for n <= 128; bytes of 0x80 and up never count, as `~x` clears their
/// high bit). `n = 0x20` finds control characters; on `x` XOR a repeated `"` or `\`,
/// `n = 1` finds a byte equal to it.
enum JSONSpecialBytes {
    /// The index of the first special byte of `bytes` at or after `start`, or nil.
    static func firstIndex(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var i = start
        while i + 8 <= bytes.count, !wordHasOne(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) {
            i += 8
        }
        while i < bytes.count {
            if isSpecial(bytes[i]) { return i }
            i += 1
        }
        return nil
    }

    private static func isSpecial(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\")
    }

    private static func wordHasOne(_ x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let q = x ^ (ones &* 0x22), b = x ^ (ones &* 0x5C)
        return ((x &- ones &* 0x20) & ~x | (q &- ones) & ~q | (b &- ones) & ~b) & highs != 0
    }
}
