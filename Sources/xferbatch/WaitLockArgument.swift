import XferBatch

/// `--wait-lock[=DURATION]`: an option whose value may be left out, which
/// swift-argument-parser's options cannot express (they always take the next word).
///
/// Before parsing, a bare `--wait-lock` becomes `--wait-lock=forever`. It is bare when it
/// is not written with `=` and the next word is not a duration, so `--wait-lock 10m` keeps
/// its meaning and `run --wait-lock nightly.json` does not read the manifest as the value.
enum WaitLockArgument {
    static let name = "--wait-lock"
    /// The value a bare `--wait-lock` stands for: wait until the holder ends.
    static let forever = "forever"

    /// `arguments` (without the program's name) with each bare `--wait-lock` given its value.
    static func expanding(_ arguments: [String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(arguments.count)
        var rest = arguments[...]
        while let word = rest.popFirst() {
            if word == "--" {
                result.append(word)
                result += rest
                break
            }
            guard word == name else {
                result.append(word)
                continue
            }
            if let next = rest.first, isValue(next) {
                result += [word, next]
                rest.removeFirst()
            } else {
                result.append("\(name)=\(forever)")
            }
        }
        return result
    }

    /// The wait a parsed value asks for, or nil when it is neither a duration nor `forever`.
    static func wait(_ value: String) -> RunLock.Wait? {
        if value == forever { return .indefinitely }
        return DurationText.parse(value).map { .upTo($0) }
    }

    private static func isValue(_ word: String) -> Bool { word == forever || DurationText.parse(word) != nil }
}
