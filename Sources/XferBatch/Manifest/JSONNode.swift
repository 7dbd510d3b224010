/// A parsed JSON value together with where it starts in the source.
///
/// The manifest loader keeps positions so that every problem can be reported as
/// `FILE:LINE:COL: json.path: message`; `offset` is a byte offset into the UTF-8 source.
public struct JSONNode: Sendable {
    public var value: JSONValue
    /// Stored in 32 bits: manifests are at most `ManifestLoader.maxBytes` long, and a
    /// smaller node keeps the tree of a 100,000-job manifest small.
    private var storedOffset: UInt32

    /// Byte offset of the value's first character in the source.
    public var offset: Int { Int(storedOffset) }

    public init(_ value: JSONValue, offset: Int) {
        self.value = value
        self.storedOffset = UInt32(truncatingIfNeeded: offset)
    }
}

/// The six JSON types. Object members keep source order (and their key's offset).
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object([JSONMember])

    /// The JSON type's name as users know it, for "expected X, found Y" messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// One `"key": value` pair of a JSON object.
public struct JSONMember: Sendable {
    public var key: String
    public var value: JSONNode
    private var storedKeyOffset: UInt32

    /// Byte offset of the key's opening quote.
    public var keyOffset: Int { Int(storedKeyOffset) }

    public init(key: String, keyOffset: Int, value: JSONNode) {
        self.key = key
        self.value = value
        self.storedKeyOffset = UInt32(truncatingIfNeeded: keyOffset)
    }
}

extension JSONNode {
    /// The member value under `key`, if this is an object that has it.
    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }
}
