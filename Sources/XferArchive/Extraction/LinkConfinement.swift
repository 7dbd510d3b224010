#if canImport(Glibc)
import Glibc
#endif

/// Checks, on disk, that every symbolic link extracted resolves inside the target folder.
///
/// The check by name (`EntryPath.lexicalTarget`) misses chains: with `a -> .` and
/// `b -> a/..`, `b` looks like it stays in place, but `a/..` is the folder *above*. Here
/// each target is followed component by component the way the kernel would, expanding
/// every link met on the way, inside the staging folder and once all entries exist, so no
/// later entry can change the answer. A target that does not exist is followed by name
/// (a dangling link inside the folder is harmless). More than 40 links in one resolution
/// (a loop) counts as escaping.
struct LinkConfinement {
    let root: Int32
    static let maxHops = 40

    /// Whether a link at `link` (components under the root) with `target` stays inside.
    func staysInside(link: [String], target: String) -> Bool {
        var resolved = Array(link.dropLast())
        var pending = Array(EntryPath.pieces(of: target).reversed())  // bytes: see `EntryPath.pieces`
        if EntryPath.isAbsolute(target) { return false }
        var hops = 0
        while let piece = pending.popLast() {
            if EntryPath.isCurrent(piece) { continue }
            if EntryPath.isParent(piece) {
                if resolved.isEmpty { return false }
                resolved.removeLast()
                continue
            }
            resolved.append(piece)
            guard let next = readLink(resolved.joined(separator: "/")) else { continue }
            hops += 1
            if hops > Self.maxHops || EntryPath.isAbsolute(next) { return false }
            resolved.removeLast()
            pending += EntryPath.pieces(of: next).reversed()
        }
        return true
    }

    /// The target of the link at `path` (relative to the root), or nil when it is not a link.
    /// `path` never passes through a link: `staysInside` expands each one as it meets it.
    private func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let n = readlinkat(root, path, &buffer, 4096)
        guard n >= 0 else { return nil }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
