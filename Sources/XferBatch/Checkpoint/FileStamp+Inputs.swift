import Foundation

extension FileStamp {
    /// A digest of several files' names, sizes, inode numbers and modification times, and
    /// their total size: how a job whose work derives from files on disk (an archive, an
    /// extraction, an upload) tells that none of them changed without reading them.
    ///
    /// A file replaced by a rename (a download landing again) is a new inode, even within
    /// one tick of the file-system clock; content edited in place within the same tick and
    /// size would go unnoticed, as with rsync's quick check.
    /// - Parameter files: each file's name as the job presents it, and its path.
    static func inputs(_ files: [(name: String, path: String)]) -> (digest: String, bytes: Int64) {
        var total: Int64 = 0
        let digest = FileDigest.sha256(ofText: files.map { file in
            var info = stat()
            guard stat(file.path, &info) == 0 else { return "\(file.name)\u{1F}missing" }
            total += Int64(info.st_size)
            return "\(file.name)\u{1F}\(info.st_size)\u{1F}\(info.st_ino)\u{1F}\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }.joined(separator: "\n"))
        return (digest, total)
    }

    /// `inputs` of an upload's sources, each named by its path: what an upload records as
    /// sent (in its checkpoint's `etag`), and what `plan` compares with that.
    static func sources(_ paths: [String]) -> String {
        inputs(paths.map { ($0, $0) }).digest
    }
}
