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
        Self.match(pattern[...], Array(path.utf8)[...], prefix: false)
    }

    /// Whether the pattern can match some file inside `folder` (at any depth), whatever
    /// files it will hold: `/out/big*.bin` cannot reach inside `/out/x/`, `/out/*/a.log`
    /// and `/out/**` can. Decided on the text alone, as the planner decides everything.
    func canMatchInside(_ folder: String) -> Bool {
        let prefix = folder.utf8.last == UInt8(ascii: "/") ? folder : folder + "/"
        return Self.match(pattern[...], Array(prefix.utf8)[...], prefix: true)
    }

    /// Whether `p` spells `s`; with `prefix`, whether it spells `s` and then at least one
    /// more character (`s` is only the beginning of a path).
    private static func match(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>, prefix: Bool) -> Bool {
        var p = p, s = s
        while let c = p.first {
            if c == UInt8(ascii: "*") {
                let doubleStar = p.dropFirst().first == UInt8(ascii: "*")
                let rest = p.dropFirst(doubleStar ? 2 : 1)
                var candidate = s
                while true {
                    if match(rest, candidate, prefix: prefix) { return true }
                    // All of `s` spelled: the star may go on spelling what follows a prefix.
                    guard let next = candidate.first else { return prefix }
                    guard doubleStar || next != UInt8(ascii: "/") else { return false }
                    candidate = candidate.dropFirst()
                }
            }
            // `s` ends before the pattern: a whole path does not match, a prefix goes on.
            guard let x = s.first else { return prefix }
            if c == UInt8(ascii: "?") {
                if x == UInt8(ascii: "/") { return false }
            } else if c != x {
                return false
            }
            p = p.dropFirst()
            s = s.dropFirst()
        }
        return !prefix && s.isEmpty
    }
}
