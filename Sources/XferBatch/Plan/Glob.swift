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

    /// Whether the pattern can match some file inside `folder` (at any depth), whatever
    /// files it will hold: `/out/big*.bin` cannot reach inside `/out/x/`, `/out/*/a.log`
    /// and `/out/**` can. Decided on the text alone, as the planner decides everything.
    func canMatchInside(_ folder: String) -> Bool {
        let prefix = folder.utf8.last == UInt8(ascii: "/") ? folder : folder + "/"
        return Self.matchPrefix(pattern[...], Array(prefix.utf8)[...])
    }

    /// `match` for a path of which only the beginning, `s`, is known: true when the pattern
    /// can spell `s` and then at least one more character.
    private static func matchPrefix(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
        var p = p, s = s
        while let c = p.first {
            guard let x = s.first else { return true }
            if c == UInt8(ascii: "*") {
                let doubleStar = p.dropFirst().first == UInt8(ascii: "*")
                let rest = p.dropFirst(doubleStar ? 2 : 1)
                var candidate = s
                while true {
                    if matchPrefix(rest, candidate) { return true }
                    // The star has spelled all of `s` and may go on spelling the rest.
                    guard let next = candidate.first else { return true }
                    guard doubleStar || next != UInt8(ascii: "/") else { return false }
                    candidate = candidate.dropFirst()
                }
            }
            if c == UInt8(ascii: "?") {
                if x == UInt8(ascii: "/") { return false }
            } else if c != x {
                return false
            }
            p = p.dropFirst()
            s = s.dropFirst()
        }
        return false
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
