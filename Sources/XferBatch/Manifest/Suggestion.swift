/// "Did you mean" for misspelled keys and job ids.
enum Suggestion {
    /// The candidate closest to `word`, if close enough to be a plausible typo:
    /// a case-insensitive match, an edit distance of at most a third of its length
    /// (min 1, max 3), a shared beginning of four letters or more (`retries` -> `retry`),
    /// one of eight or more that is most of the shorter word: a word spelled out in full
    /// where the key abbreviates it (`createMissingDirectories` -> `createMissingDirs`), or
    /// the whole word, of three letters or more, as the key's beginning (`sha` -> `sha256`).
    static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lower = word.lowercased()
        var best: (String, Int)? = nil
        for candidate in candidates {
            if candidate.lowercased() == lower { return candidate }
            let d = distance(Array(lower.utf8), Array(candidate.lowercased().utf8))
            let sharedPrefix = zip(lower.utf8, candidate.lowercased().utf8).prefix { $0 == $1 }.count
            let allowed = sharedPrefix >= 4 ? max(3, candidate.count / 3) : min(3, max(1, candidate.count / 3))
            let spelledOut = sharedPrefix >= 8 && sharedPrefix * 4 >= min(lower.utf8.count, candidate.utf8.count) * 3
            let shortened = sharedPrefix >= 3 && sharedPrefix == lower.utf8.count
            if d <= allowed || spelledOut || shortened, d < (best?.1 ?? Int.max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// " (did you mean \"x\"?)" or "".
    static func phrase(for word: String, in candidates: some Sequence<String>) -> String {
        closest(to: word, in: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prevPrev = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, current[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, prevPrev[j - 2] + 1) }
                current[j] = v
            }
            (prevPrev, prev, current) = (prev, current, prevPrev)
        }
        return prev[b.count]
    }
}
