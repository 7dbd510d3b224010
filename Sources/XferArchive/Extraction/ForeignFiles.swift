#if canImport(Glibc)
import Glibc
#endif

/// Files in a folder an extraction is about to replace that the new extraction does not
/// have: someone else's, which replacing the folder whole would delete.
///
/// Walked without following links, by name: a file, link or other non-folder entry under
/// the old folder is foreign unless the staging folder has something at the same relative
/// path. Folders themselves are not counted (they hold no data). The cost is one `lstat`
/// per old file, paid only when a folder is there that is not this job's own earlier
/// extraction (see `ExtractionOptions.replacesFolder`).
enum ForeignFiles {
    /// Up to `limit` relative paths of foreign files under `target`, and how many there are.
    static func find(in target: String, against staging: String, limit: Int = 3) -> (examples: [String], count: Int) {
        var found: (examples: [String], count: Int) = ([], 0)
        let fd = open(target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return found }
        walk(fd, prefix: "", staging: staging, limit: limit, into: &found)
        return found
    }

    /// Visits the folder open as `fd` (closed here), `prefix` its relative path plus "/".
    private static func walk(_ fd: Int32, prefix: String, staging: String, limit: Int, into found: inout (examples: [String], count: Int)) {
        guard let dir = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(dir) }
        for entry in FolderEntries.names(in: dir) {
            let relative = prefix + entry.text
            var info = stat()
            guard fstatat(dirfd(dir), entry.bytes, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                let child = openat(dirfd(dir), entry.bytes, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 { walk(child, prefix: relative + "/", staging: staging, limit: limit, into: &found) }
                continue
            }
            // A name that is not UTF-8 is never one an extraction wrote (its names are text).
            var there = stat()
            if !entry.isUTF8 || lstat(staging + "/" + relative, &there) != 0 {
                found.count += 1
                if found.examples.count < limit { found.examples.append(relative) }
            }
        }
    }
}
