/// Writes JSON straight into a byte buffer: no intermediate dictionaries, no Codable.
///
/// Plans of 100,000 jobs are tens of megabytes; building `[String: Any]` trees or going
/// through `JSONEncoder` would cost more than planning itself. The writer tracks commas
/// itself; callers describe structure with `object { }`, `array { }` and `key(_:)`.
/// Output is compact unless `pretty` is set (two-space indent, for humans and snapshots).
/// Noncopyable: it owns its buffer (`ByteBuffer`), and is passed `inout`, never copied.
public struct JSONWriter: ~Copyable {
    private var buffer: ByteBuffer
    /// The bytes written so far (a copy).
    public var bytes: [UInt8] { buffer.array }
    /// How many bytes are written so far.
    public var byteCount: Int { buffer.count }
    private var needsComma = false
    /// Current nesting depth (for indentation).
    public private(set) var depth: Int
    private let pretty: Bool

    /// `depth` starts a writer as if nested that deep, to render a fragment for `raw(_:)`.
    public init(pretty: Bool = false, capacity: Int = 4096, depth: Int = 0) {
        self.pretty = pretty
        self.depth = depth
        buffer = ByteBuffer(capacity: capacity)
    }

    public var isPretty: Bool { pretty }

    /// Writes an already rendered JSON value (from a writer started at this depth).
    public mutating func raw(_ value: [UInt8]) {
        separateUnlessAfterKey()
        buffer.append(value)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { buffer.append(UInt8(ascii: ",")) }
        if pretty, depth > 0 { newline() }
    }

    private mutating func newline() {
        buffer.append(0x0A)
        for _ in 0..<depth { buffer.append(0x20); buffer.append(0x20) }
    }

    /// Hands the bytes written so far to `sink` and forgets them (structure state is kept),
    /// so a large document can be streamed out in chunks instead of held whole.
    public mutating func drain(into sink: ([UInt8]) -> Void) {
        sink(buffer.array)
        buffer.removeAll()
    }

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), body)
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), body)
    }

    private mutating func container(open: UInt8, close: UInt8, _ body: (inout JSONWriter) -> Void) {
        separateUnlessAfterKey()
        buffer.append(open)
        depth += 1
        needsComma = false
        let start = buffer.count
        body(&self)
        depth -= 1
        if pretty, buffer.count != start { newline() }
        buffer.append(close)
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
        buffer.append(UInt8(ascii: ":"))
        if pretty { buffer.append(0x20) }
        afterKey = true
        needsComma = false
    }

    /// Starts a member whose name is a literal without characters needing escapes
    /// (every key of our own formats): copied as is, with no scan.
    public mutating func key(_ name: StaticString) {
        separate()
        buffer.append(UInt8(ascii: "\""))
        buffer.append(name)
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ":"))
        if pretty { buffer.append(0x20) }
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
        buffer.appendDecimal(value)
        needsComma = true
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func double(_ value: Double) {
        separateUnlessAfterKey()
        if value.isFinite { buffer.append(utf8Of: String(value)) } else { buffer.append("null") }
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separateUnlessAfterKey()
        buffer.append(value ? "true" : "false")
        needsComma = true
    }

    public mutating func null() {
        separateUnlessAfterKey()
        buffer.append("null")
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
        buffer.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // From one byte to escape to the next, found eight bytes at a time: most strings
            // (ids, paths, URLs) have none, and are copied whole.
            var runStart = 0
            while let i = JSONSpecialBytes.firstIndex(in: utf8, from: runStart) {
                let b = utf8[i]
                buffer.append(UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                buffer.append(0x5C)
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(b)
                case 0x0A: buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(UInt8(ascii: "r"))
                case 0x09: buffer.append(UInt8(ascii: "t"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    buffer.append("u00")
                    buffer.append(hex.utf8Start[Int(b >> 4)])
                    buffer.append(hex.utf8Start[Int(b & 0xF)])
                }
                runStart = i + 1
            }
            buffer.append(UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
