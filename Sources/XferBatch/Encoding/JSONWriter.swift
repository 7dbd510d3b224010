/// Writes JSON straight into a byte buffer: no intermediate dictionaries, no Codable.
///
/// Plans of 100,000 jobs are tens of megabytes; building `[String: Any]` trees or going
/// through `JSONEncoder` would cost more than planning itself. The writer tracks commas
/// itself; callers describe structure with `object { }`, `array { }` and `key(_:)`.
/// Output is compact unless `pretty` is set (two-space indent, for humans and snapshots).
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false
    /// Current nesting depth (for indentation).
    public private(set) var depth: Int
    private let pretty: Bool

    /// `depth` starts a writer as if nested that deep, to render a fragment for `raw(_:)`.
    public init(pretty: Bool = false, capacity: Int = 4096, depth: Int = 0) {
        self.pretty = pretty
        self.depth = depth
        bytes.reserveCapacity(capacity)
    }

    public var isPretty: Bool { pretty }

    /// Writes an already rendered JSON value (from a writer started at this depth).
    public mutating func raw(_ value: [UInt8]) {
        separateUnlessAfterKey()
        bytes.append(contentsOf: value)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        if pretty, depth > 0 { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        for _ in 0..<depth { bytes.append(0x20); bytes.append(0x20) }
    }

    /// Hands the bytes written so far to `sink` and forgets them (structure state is kept),
    /// so a large document can be streamed out in chunks instead of held whole.
    public mutating func drain(into sink: ([UInt8]) -> Void) {
        sink(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), body)
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), body)
    }

    private mutating func container(open: UInt8, close: UInt8, _ body: (inout JSONWriter) -> Void) {
        separateUnlessAfterKey()
        bytes.append(open)
        depth += 1
        needsComma = false
        let start = bytes.count
        body(&self)
        depth -= 1
        if pretty, bytes.count != start { newline() }
        bytes.append(close)
        needsComma = true
        afterKey = false
    }

    private var afterKey = false

    private mutating func separateUnlessAfterKey() {
        if afterKey { afterKey = false } else { separate() }
    }

    /// Starts a member; the next value written is its value.
    public mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(0x20) }
        afterKey = true
        needsComma = false
    }

    /// Starts a member whose name is a literal without characters needing escapes
    /// (every key of our own formats): copied as is, with no scan.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(0x20) }
        afterKey = true
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separateUnlessAfterKey()
        writeString(value)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        separateUnlessAfterKey()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func double(_ value: Double) {
        separateUnlessAfterKey()
        if value.isFinite { bytes.append(contentsOf: String(value).utf8) } else { bytes.append(contentsOf: "null".utf8) }
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separateUnlessAfterKey()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    public mutating func null() {
        separateUnlessAfterKey()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    // Conveniences for `key: value` members with literal names.
    public mutating func member(_ name: StaticString, _ value: String) { key(name); string(value) }
    public mutating func member(_ name: StaticString, _ value: String?) { key(name); if let value { string(value) } else { null() } }
    public mutating func member(_ name: StaticString, _ value: Int) { key(name); int(value) }
    public mutating func member(_ name: StaticString, _ value: Int64?) { key(name); if let value { int(value) } else { null() } }
    public mutating func member(_ name: StaticString, _ value: Bool) { key(name); bool(value) }
    /// A member with a name from data (escaped as needed).
    public mutating func member(named name: String, _ value: String) { key(name); string(value) }
    public mutating func member(_ name: StaticString, strings: [String]) {
        key(name)
        array { w in for s in strings { w.string(s) } }
    }

    private mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // From one byte to escape to the next, found eight bytes at a time: most strings
            // (ids, paths, URLs) have none, and are copied whole.
            var runStart = 0
            while let i = JSONSpecialBytes.firstIndex(in: utf8, from: runStart) {
                let b = utf8[i]
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                switch b {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
                runStart = i + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
