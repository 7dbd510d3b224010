import Foundation

/// Byte-level ASCII helpers for hot paths (per-job work in 100,000-job manifests), where
/// Character-level or Foundation string searching costs more than the work itself.
enum ASCII {
    static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }

    static func lowercased(_ b: UInt8) -> UInt8 {
        isUpper(b) ? b | 0x20 : b
    }

    /// The text of `bytes` with ASCII letters in lower case; decoded as they are when none
    /// is upper case (nearly every scheme and host), without building a lower-cased copy.
    static func lowercasedString(_ bytes: some Collection<UInt8>) -> String {
        bytes.contains(where: isUpper) ? String(decoding: bytes.map(lowercased), as: UTF8.self)
            : String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` holds the byte `b`, by `memchr` over its UTF-8 storage: the generic
    /// `text.utf8.contains(b)` walks `String.UTF8View`'s indices, about 30 instructions a
    /// byte (callgrind), which made it 6.6% of planning a 20,000-job manifest.
    static func contains(_ text: String, _ b: UInt8) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(start, Int32(b), bytes.count) != nil
        }
    }

    /// Whether every byte of `text` satisfies `predicate`, over its contiguous UTF-8
    /// storage: the generic `text.utf8.allSatisfy` cost up to 56 instructions a byte
    /// (callgrind, checking a manifest's sha256 digests).
    static func allSatisfy(_ text: String, _ predicate: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { $0.allSatisfy(predicate) }
    }

    /// True when `haystack`, compared case-insensitively, contains the lower-case ASCII `needle`.
    static func containsIgnoringCase(_ haystack: some Collection<UInt8>, _ needle: StaticString) -> Bool {
        let n = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        let h = Array(haystack)
        guard n.count <= h.count else { return false }
        outer: for start in 0...(h.count - n.count) {
            for k in 0..<n.count where lowercased(h[start + k]) != n[k] { continue outer }
            return true
        }
        return false
    }
}
