#if canImport(Glibc)
import Glibc
#endif

/// The names in an open folder, without `.` and `..`: read in full before the caller acts
/// on them, since removing or creating entries while `readdir` walks may skip some.
enum FolderEntries {
    /// A name as the file system holds it, and as text. The bytes need not be UTF-8 (a
    /// Latin-1 `caf\xE9.txt` put there by someone else): the text then has U+FFFD in their
    /// place and names nothing, so system calls take `bytes`, which always do.
    struct Name {
        /// NUL-terminated, for `fstatat`, `openat`, `unlinkat`.
        let bytes: [CChar]
        let text: String
        /// False when the bytes are not UTF-8 (`text` is then only for messages).
        let isUTF8: Bool
    }

    static func names(in dir: OpaquePointer) -> [Name] {
        var names: [Name] = []
        while let entry = readdir(dir) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.bindMemory(to: CChar.self).prefix { $0 != 0 }) + [0]
            }
            if bytes == [0x2E, 0] || bytes == [0x2E, 0x2E, 0] { continue }
            let valid = bytes.withUnsafeBufferPointer { String(validatingCString: $0.baseAddress!) }
            names.append(Name(bytes: bytes, text: valid ?? bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, isUTF8: valid != nil))
        }
        return names
    }
}
