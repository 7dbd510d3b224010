/// Finds the first byte that makes a buffer invalid UTF-8.
///
/// The manifest must be UTF-8; rather than letting a decoder substitute U+FFFD
/// (which would silently change a path or URL), the loader refuses the file and
/// names the exact offset.
enum UTF8Check {
    /// The offset of the first invalid sequence, or nil when `bytes` is valid UTF-8.
    static func firstInvalidOffset(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            let n = b.count
            guard let base = b.baseAddress else { return nil }
            while i < n {
                // ASCII, nearly all of a manifest, eight bytes at a time (no high bit set).
                while i + 8 <= n, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                }
                guard i < n else { break }
                let c = b[i]
                if c < 0x80 { i += 1; continue }
                let need: Int
                var minScalar: UInt32
                var scalar: UInt32
                switch c {
                case 0xC2...0xDF: need = 1; minScalar = 0x80; scalar = UInt32(c & 0x1F)
                case 0xE0...0xEF: need = 2; minScalar = 0x800; scalar = UInt32(c & 0x0F)
                case 0xF0...0xF4: need = 3; minScalar = 0x10000; scalar = UInt32(c & 0x07)
                default: return i
                }
                guard i + need < n else { return i }
                for k in 1...need {
                    let cc = b[i + k]
                    guard cc & 0xC0 == 0x80 else { return i }
                    scalar = scalar << 6 | UInt32(cc & 0x3F)
                }
                if scalar < minScalar || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return i }
                i += need + 1
            }
            return nil
        }
    }
}
