/// Percent-encoding primitives shared by URL normalisation and file naming.
enum PercentEncoding {
    static func isHex(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }

    static func hexValue(_ b: UInt8) -> UInt8 {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        default: b - 0x61 + 10
        }
    }

    /// `%XX` for one byte, upper-case hex.
    static func escape(_ b: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0xF)]]
    }

    /// Decodes `%XX` escapes; invalid UTF-8 in the result is replaced with U+FFFD.
    static func decode(_ text: String) -> String {
        guard ASCII.contains(text, UInt8(ascii: "%")) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out.append(hexValue(bytes[i + 1]) << 4 | hexValue(bytes[i + 2]))
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
