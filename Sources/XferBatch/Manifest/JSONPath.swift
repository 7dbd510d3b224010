/// A location inside the manifest as users write it: `jobs[3].download.url`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public static let root = JSONPath()

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }

    /// `$` for the document itself; keys that are not plain identifiers are quoted (`headers["X Y"]`).
    public var description: String {
        if components.isEmpty { return "$" }
        var out = ""
        for c in components {
            switch c {
            case .index(let i): out += "[\(i)]"
            case .key(let k):
                if !k.isEmpty, k.utf8.allSatisfy({ Self.isPlain($0) }) {
                    if !out.isEmpty { out += "." }
                    out += k
                } else {
                    out += "[\"\(k)\"]"
                }
            }
        }
        return out
    }

    private static func isPlain(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "$"):
            true
        default: false
        }
    }

    /// The node at this path inside `root`, if present; used to find the line of a problem
    /// that was detected after decoding (by the planner).
    public func locate(in root: JSONNode) -> JSONNode? {
        var node = root
        for c in components {
            switch (c, node.value) {
            case (.key(let k), .object(let members)):
                guard let m = members.first(where: { $0.key == k }) else { return node }
                node = m.value
            case (.index(let i), .array(let items)):
                guard items.indices.contains(i) else { return node }
                node = items[i]
            default:
                return node
            }
        }
        return node
    }
}
