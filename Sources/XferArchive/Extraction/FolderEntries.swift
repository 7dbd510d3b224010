#if canImport(Glibc)
import Glibc
#endif

/// The names in an open folder, without `.` and `..`: read in full before the caller acts
/// on them, since removing or creating entries while `readdir` walks may skip some.
enum FolderEntries {
    static func names(in dir: OpaquePointer) -> [String] {
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
