/// Decodes `data:` URLs (RFC 2397), which libcurl does not handle.
public enum DataURL {
    /// Why `url` cannot be decoded, in words for the manifest's error (which checks it, so
    /// a run never starts on one); nil when it can.
    public static func problem(_ url: String) -> String? {
        guard url.lowercased().hasPrefix("data:"), let comma = url.firstIndex(of: ",") else {
            return "a data: URL needs a comma before its content (data:[type][;base64],content)"
        }
        guard url[..<comma].lowercased().hasSuffix(";base64") else { return nil }
        let payload = percentDecode(Array(url[url.index(after: comma)...].utf8))
        guard let bad = payload.firstIndex(where: { base64Value($0) == nil && !isBase64Filler($0) }) else { return nil }
        let shown = payload[bad] < 0x80 && payload[bad] >= 0x20 ? "\"\(Character(UnicodeScalar(payload[bad])))\"" : "byte \(payload[bad])"
        return "its content is marked ;base64 but holds \(shown) at position \(bad + 1), which base64 does not use"
    }

    /// The payload bytes, or nil when malformed.
    static func decode(_ url: String) -> [UInt8]? {
        guard url.lowercased().hasPrefix("data:"), let comma = url.firstIndex(of: ",") else { return nil }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma]
        let payload = url[url.index(after: comma)...]
        let isBase64 = header.lowercased().hasSuffix(";base64")
        let bytes = percentDecode(Array(payload.utf8))
        return isBase64 ? base64(bytes) : bytes
    }

    static func percentDecode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    static func base64(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in text {
            if isBase64Filler(c) { continue }
            guard let v = base64Value(c) else { return nil }
            buffer = buffer << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }

    /// A base64 digit's value (standard and URL-safe alphabets), or nil.
    private static func base64Value(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(c - 65)
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(c - 97 + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - 48 + 52)
        case UInt8(ascii: "+"), UInt8(ascii: "-"): 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): 63
        default: nil
        }
    }

    /// Padding and white space, which base64 text may hold and decoding skips.
    private static func isBase64Filler(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "=") || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
