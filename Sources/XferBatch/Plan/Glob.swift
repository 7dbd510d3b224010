/// Shell-style globs over absolute paths: `*` and `?` stay within one path component,
/// `**` crosses components, `[...]` is not special.
struct Glob: Sendable {
    let pattern: [UInt8]

    init(_ pattern: String) {
        self.pattern = Array(pattern.utf8)
    }

    static func isPattern(_ text: String) -> Bool {
        text.contains("*") || text.contains("?")
    }

    /// The folder before the first wildcard component: `/out/logs/*/x` -> `/out/logs`.
    static func fixedFolder(of pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false)
            .prefix { !$0.contains("*") && !$0.contains("?") }.joined(separator: "/")
    }

    func matches(_ path: String) -> Bool {
        Self.match(pattern[...], Array(path.utf8)[...])
    }

    private static func match(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
        var p = p, s = s
        while let c = p.first {
            if c == UInt8(ascii: "*") {
                let doubleStar = p.dropFirst().first == UInt8(ascii: "*")
                let rest = p.dropFirst(doubleStar ? 2 : 1)
                var candidate = s
                while true {
                    if match(rest, candidate) { return true }
                    guard let next = candidate.first, doubleStar || next != UInt8(ascii: "/") else { return false }
                    candidate = candidate.dropFirst()
                }
            }
            guard let x = s.first else { return false }
            if c == UInt8(ascii: "?") {
                if x == UInt8(ascii: "/") { return false }
            } else if c != x {
                return false
            }
            p = p.dropFirst()
            s = s.dropFirst()
        }
        return s.isEmpty
    }
}
