import Foundation

/// Lexical path arithmetic (no file system access): join, normalise, containment.
///
/// The planner touches nothing, so confinement is decided on the text of the paths;
/// the executor re-checks with the real file system before writing.
enum PathText {
    /// `path` made absolute against the current directory and normalised.
    static func absolute(_ path: String) -> String {
        if path.utf8.first == UInt8(ascii: "/") { return normalize(path) }
        return normalize(FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// `path` resolved against `base`, or against `home` when it starts with `~/` (or is
    /// `~`), as a shell would: a manifest saying `"outputDir": "~/mirror"` means the home
    /// folder's `mirror`, not a folder named `~` beside the manifest (a trap for whoever
    /// later cleans it up with `rm -rf ~`). `home` comes from `home(in:)`.
    static func resolve(_ path: String, against base: String, home: String) -> String {
        if path == "~" || path.hasPrefix("~/") { return resolve(String(path.dropFirst(path == "~" ? 1 : 2)), against: home) }
        return resolve(path, against: base)
    }

    /// The home folder `~` means: `HOME`, else (unset or empty, as under `env -i`, some
    /// systemd units and containers) the user's home in the password database, as a shell
    /// falls back to. A user without one gets Foundation's `/var/empty`, where nothing can
    /// be written; before, such a run wrote into a folder named `~` in the current folder.
    static func home(in environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        return NSHomeDirectory()
    }

    /// `path` resolved against `base` (kept as is when absolute), normalised.
    static func resolve(_ path: String, against base: String) -> String {
        if path.utf8.first == UInt8(ascii: "/") { return normalize(path) }
        return normalize(base + "/" + path)
    }

    /// Removes `.`, empty components and resolves `..` lexically; keeps a leading `/`.
    /// `..` above the root stays at the root.
    ///
    /// Components are split at `/` bytes, as the kernel splits them: a `String` splits
    /// between grapheme clusters, and one can hold a `/` (after U+0600, a "prepend" mark),
    /// so `x\u{600}/..` would stay one name here and be `x\u{600}` then `..` on disk.
    static func normalize(_ path: String) -> String {
        if isNormal(path) { return path }
        let slash = UInt8(ascii: "/")
        let absolute = path.utf8.first == slash
        func isDots(_ c: Substring, _ n: Int) -> Bool { c.utf8.count == n && c.utf8.allSatisfy { $0 == UInt8(ascii: ".") } }
        var parts: [Substring] = []
        for bytes in path.utf8.split(separator: slash, omittingEmptySubsequences: true) {
            let component = Substring(bytes)
            if isDots(component, 1) { continue }
            if isDots(component, 2) {
                if let last = parts.last, !isDots(last, 2) { parts.removeLast() } else if !absolute { parts.append(component) }
                continue
            }
            parts.append(component)
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// True when normalising `path` would not change it: no empty, `.` or `..` components
    /// and no trailing `/` (checked on bytes; the common case skips all allocation).
    static func isNormal(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        if path == "/" { return true }
        var path = path
        // Over the contiguous bytes: walking `path.utf8` cost about 12 instructions a byte.
        return path.withUTF8 { bytes in
            var length = 0  // of the current component
            var onlyDots = true
            for (i, b) in bytes.enumerated() {
                if b == slash {
                    if i == 0 { continue }  // a leading "/"
                    if length == 0 || (onlyDots && length <= 2) { return false }
                    length = 0
                    onlyDots = true
                } else {
                    length += 1
                    if b != dot { onlyDots = false }
                }
            }
            return length > 0 && !(onlyDots && length <= 2)
        }
    }

    /// True when `path` is `folder` or inside it (both normalised and absolute).
    /// Compares bytes, as the filesystem does (no Unicode equivalence; and cheaper: it
    /// runs for every job's events).
    static func isWithin(_ path: String, folder: String) -> Bool {
        // On the strings' contiguous bytes with memcmp: `UTF8View.starts(with:)` cost about
        // 1,400 instructions a call (callgrind, bench/plan-scale), which `plan` paid twice a job.
        var (path, folder) = (path, folder)
        return path.withUTF8 { p in
            folder.withUTF8 { f in
                guard p.count >= f.count else { return false }
                guard f.count > 0 else { return true }
                guard memcmp(p.baseAddress!, f.baseAddress!, f.count) == 0 else { return false }
                return p.count == f.count || f[f.count - 1] == UInt8(ascii: "/") || p[f.count] == UInt8(ascii: "/")
            }
        }
    }

    /// `path` relative to `base` when inside it, else `path` itself (for display). `base`
    /// itself as a folder (`base + "/"`, a download into the output folder) is `./`.
    static func display(_ path: String, relativeTo base: String) -> String {
        guard isWithin(path, folder: base), path.utf8.count != base.utf8.count else { return path }
        let skip = base.utf8.count + (base.utf8.last == UInt8(ascii: "/") ? 0 : 1)
        let relative = path.utf8.dropFirst(skip)
        return relative.isEmpty ? "./" : String(decoding: relative, as: UTF8.self)
    }

    /// The folder of an absolute, normalised path: `/a/b/c` -> `/a/b`, `/a` -> `/`.
    /// Byte-level (Foundation's `deletingLastPathComponent` showed in a run's profile).
    static func parent(_ path: String) -> String {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == bytes.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func lastComponent(_ path: String) -> String {
        path.utf8.split(separator: UInt8(ascii: "/")).last.map { String(Substring($0)) } ?? path
    }
}
