/// Shell-style globs over absolute paths: `*` and `?` stay within one path component,
/// `**` crosses components, `[...]` is not special.
struct Glob: Sendable {
    private let tokens: [Token]

    init(_ pattern: String) {
        tokens = Token.parse(Array(pattern.utf8)[...])
    }

    /// Whether `text` has a `*` or `?`. By bytes, as the pattern is read: by Characters a
    /// `*` that a neighbour joins into one (after U+0600, before a combining accent) was
    /// missed, and the pattern taken for a file name.
    static func isPattern(_ text: some StringProtocol) -> Bool {
        text.utf8.contains { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }
    }

    /// The folder before the first wildcard component: `/out/logs/*/x` -> `/out/logs`.
    static func fixedFolder(of pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false)
            .prefix { !isPattern($0) }.joined(separator: "/")
    }

    func matches(_ path: String) -> Bool {
        match(path.utf8, prefix: false)
    }

    /// Whether the pattern can match some file inside `folder` (at any depth), whatever
    /// files it will hold: `/out/big*.bin` cannot reach inside `/out/x/`, `/out/*/a.log`
    /// and `/out/**` can. Decided on the text alone, as the planner decides everything.
    func canMatchInside(_ folder: String) -> Bool {
        let prefix = folder.utf8.last == UInt8(ascii: "/") ? folder : folder + "/"
        return match(prefix.utf8, prefix: true)
    }

    /// Whether the pattern spells `s`; with `prefix`, whether it spells `s` and then at
    /// least one more character (`s` is only the beginning of a path).
    ///
    /// Runs the pattern as a set of positions over `s`, one byte at a time: time grows with
    /// the pattern's length times the path's, whatever the stars. Trying each way a star
    /// could end, one after the other, took time exponential in the stars (`*a*a*a…*b`
    /// against a name of forty `a`s did not finish in minutes), and a manifest chooses both
    /// the patterns and the names.
    private func match(_ s: String.UTF8View, prefix: Bool) -> Bool {
        var current = [Bool](repeating: false, count: tokens.count + 1)
        var next = current
        current[0] = true
        Token.closeOverEmptyStars(&current, tokens)
        for byte in s {
            for i in next.indices { next[i] = false }
            var any = false
            for i in tokens.indices where current[i] {
                switch tokens[i] {
                case .byte(let c) where c == byte: next[i + 1] = true
                case .oneCharacter where byte != Glob.slash: next[i + 1] = true
                case .star where byte != Glob.slash, .doubleStar: next[i] = true
                default: continue
                }
                any = true
            }
            guard any else { return false }
            Token.closeOverEmptyStars(&next, tokens)
            swap(&current, &next)
        }
        // A prefix needs the pattern to go on past `s`; a whole path needs it to end there.
        return prefix ? current.dropLast().contains(true) : current[tokens.count]
    }

    private static let slash = UInt8(ascii: "/")

    /// One step of a pattern: a byte spelled as is, `?`, `*` or `**`.
    private enum Token {
        case byte(UInt8)
        /// `?`: any one byte but `/`.
        case oneCharacter
        /// `*`: any run of bytes without `/`, the empty one included.
        case star
        /// `**`: any run of bytes, `/` included.
        case doubleStar

        static func parse(_ pattern: ArraySlice<UInt8>) -> [Token] {
            var tokens: [Token] = []
            var rest = pattern
            while let c = rest.popFirst() {
                switch c {
                case UInt8(ascii: "*") where rest.first == UInt8(ascii: "*"):
                    rest.removeFirst()
                    tokens.append(.doubleStar)
                case UInt8(ascii: "*"): tokens.append(.star)
                case UInt8(ascii: "?"): tokens.append(.oneCharacter)
                default: tokens.append(.byte(c))
                }
            }
            return tokens
        }

        /// Adds the positions reached by letting stars spell nothing.
        static func closeOverEmptyStars(_ positions: inout [Bool], _ tokens: [Token]) {
            for i in tokens.indices where positions[i] {
                switch tokens[i] {
                case .star, .doubleStar: positions[i + 1] = true
                case .byte, .oneCharacter: continue
                }
            }
        }
    }
}
