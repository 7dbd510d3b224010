/// A strict RFC 8259 JSON parser that records the source offset of every value.
///
/// Why not Foundation's `JSONSerialization`: it reports neither positions nor duplicate
/// keys, and both are needed to point users at the exact line of a mistake. The parser
/// works on raw bytes, never recurses deeper than `maxDepth` (so hostile input cannot
/// overflow the stack) and rejects duplicate keys, which would otherwise silently
/// override a setting.
public struct JSONParser {
    /// Deepest nesting accepted; manifests need about six levels.
    public static let maxDepth = 64

    /// Parses a complete document; trailing non-whitespace is an error.
    /// A leading UTF-8 byte order mark is skipped.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        try parse(bytes, streamingElementsOf: nil) { _, _ in }
    }

    /// Parses a document, handing each element of the array under the top-level key
    /// `key` to `element` as soon as it is parsed, instead of keeping it in the tree
    /// (which then holds an empty array there, at the array's offset).
    ///
    /// Why: a 100,000-job manifest's `jobs` array is nearly all of the document; decoding
    /// one job at a time and dropping its nodes keeps memory flat and the caches warm.
    public static func parse(_ bytes: [UInt8], streamingElementsOf key: String?,
                             element: @escaping (JSONNode, Int) -> Void) throws(JSONSyntaxError) -> JSONNode {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONNode in
            var parser = Cursor(bytes: buffer)
            parser.streamKey = key
            parser.onElement = element
            if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { parser.index = 3 }
            parser.skipWhitespace()
            guard parser.index < buffer.count else {
                throw JSONSyntaxError(offset: parser.index, message: "the file is empty; expected a JSON object")
            }
            let root = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            if parser.index < buffer.count {
                throw JSONSyntaxError(offset: parser.index, message: "unexpected \(parser.describeCurrent()) after the end of the document")
            }
            return root
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var streamKey: String?
        var onElement: (JSONNode, Int) -> Void = { _, _ in }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        func describeCurrent() -> String {
            guard index < bytes.count else { return "end of file" }
            let b = bytes[index]
            if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
            return "byte 0x\(String(b, radix: 16, uppercase: true))"
        }

        func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
            JSONSyntaxError(offset: offset ?? index, message: message)
        }

        mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONNode {
            guard index < bytes.count else { throw error("unexpected end of file; expected a value") }
            let start = index
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard depth < JSONParser.maxDepth else { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
                return JSONNode(.object(try parseObject(depth: depth + 1)), offset: start)
            case UInt8(ascii: "["):
                guard depth < JSONParser.maxDepth else { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
                return JSONNode(.array(try parseArray(depth: depth + 1)), offset: start)
            case UInt8(ascii: "\""):
                return JSONNode(.string(try parseString()), offset: start)
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                return JSONNode(.bool(true), offset: start)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                return JSONNode(.bool(false), offset: start)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                return JSONNode(.null, offset: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return JSONNode(.number(try parseNumber()), offset: start)
            default:
                throw error("unexpected \(describeCurrent()); expected a value")
            }
        }

        mutating func expectLiteral(_ word: StaticString) throws(JSONSyntaxError) {
            let start = index
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { throw error("unexpected \(describeCurrent()); expected a value", at: start) }
            let p = word.utf8Start
            for i in 0..<count where bytes[index + i] != p[i] {
                throw error("unexpected \(describeCurrent()); expected a value", at: start)
            }
            index += count
        }

        mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> [JSONMember] {
            index += 1  // {
            var members: [JSONMember] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return members
            }
            // Most objects of a manifest have a handful of members: one allocation, not the
            // three or four of growing from empty.
            members.reserveCapacity(6)
            var seen: Set<String>? = nil
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("unexpected \(describeCurrent()); expected a quoted key")
                }
                let keyOffset = index
                let key = try parseString()
                if members.count >= 16 {
                    if seen == nil { seen = Set(members.map(\.key)) }
                    if !seen!.insert(key).inserted { throw error("duplicate key \"\(key)\"", at: keyOffset) }
                } else if members.contains(where: { $0.key == key }) {
                    throw error("duplicate key \"\(key)\"", at: keyOffset)
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("unexpected \(describeCurrent()); expected ':' after key \"\(key)\"")
                }
                index += 1
                skipWhitespace()
                let value: JSONNode
                if depth == 1, key == streamKey, index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                    let start = index
                    try streamArray(depth: depth + 1)
                    value = JSONNode(.array([]), offset: start)
                } else {
                    value = try parseValue(depth: depth)
                }
                members.append(JSONMember(key: key, keyOffset: keyOffset, value: value))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of file; expected ',' or '}'") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return members }
                throw error("unexpected \(describeCurrent()); expected ',' or '}'")
            }
        }

        mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> [JSONNode] {
            index += 1  // [
            var elements: [JSONNode] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return elements
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of file; expected ',' or ']'") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return elements }
                throw error("unexpected \(describeCurrent()); expected ',' or ']'")
            }
        }

        /// Like `parseArray`, but hands each element to `onElement` instead of keeping it.
        mutating func streamArray(depth: Int) throws(JSONSyntaxError) {
            index += 1  // [
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            var count = 0
            while true {
                skipWhitespace()
                onElement(try parseValue(depth: depth), count)
                count += 1
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of file; expected ',' or ']'") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return }
                throw error("unexpected \(describeCurrent()); expected ',' or ']'")
            }
        }

        mutating func parseNumber() throws(JSONSyntaxError) -> Double {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits(_ c: inout Cursor) -> Int {
                let s = c.index
                while c.index < c.bytes.count, c.bytes[c.index] >= 0x30, c.bytes[c.index] <= 0x39 { c.index += 1 }
                return c.index - s
            }
            guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else {
                throw error("malformed number", at: start)
            }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    throw error("malformed number: leading zeros are not allowed", at: start)
                }
            } else {
                _ = digits(&self)
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw error("malformed number: digits expected after '.'", at: start) }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw error("malformed number: digits expected in the exponent", at: start) }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
            return value
        }

        mutating func parseString() throws(JSONSyntaxError) -> String {
            let open = index
            index += 1  // "
            let start = index
            // Fast path: no escapes, up to the closing quote.
            guard let stop = JSONSpecialBytes.firstIndex(in: bytes, from: start) else {
                index = bytes.count
                throw error("unterminated string", at: open)
            }
            index = stop
            if bytes[index] == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return s
            }
            if bytes[index] < 0x20 { throw error("control character in string; escape it (e.g. \\n)") }
            var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let b = bytes[index]
                switch b {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { throw error("unterminated string", at: open) }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        let scalar = try parseUnicodeEscape()
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: index - 2)
                    }
                default:
                    if b < 0x20 { throw error("control character in string; escape it (e.g. \\n)") }
                    out.append(b)
                    index += 1
                }
            }
            throw error("unterminated string", at: open)
        }

        mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
            guard bytes.count - index >= 4 else { throw error("truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw error("invalid hex digit in \\u escape")
                }
                v = v << 4 | d
                index += 1
            }
            return v
        }

        mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
            let at = index - 2
            let high = try parseHex4()
            if (0xD800...0xDBFF).contains(high) {
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate in \\u escape", at: at)
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape", at: at) }
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                guard let s = Unicode.Scalar(value) else { throw error("invalid \\u escape", at: at) }
                return s
            }
            guard let s = Unicode.Scalar(high) else { throw error("unpaired surrogate in \\u escape", at: at) }
            return s
        }
    }
}
