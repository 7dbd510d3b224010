import Foundation
import XferCurl

/// The files an archive job's path inputs stand for, read from the disk: a glob's matches,
/// every file under a folder (as `tar` packs a folder; empty folders are not kept), or the
/// file itself; never the archive being built (`own`), partial files, or anything in the
/// run's state folders.
///
/// What is there but cannot be packed fails the job instead of being left out of the
/// archive without a word: a folder that cannot be read (`tar` exits 2 on one), a name
/// the file system holds in bytes that are not UTF-8 (`caf\xE9.txt` from a Latin-1
/// system), which Foundation hands over with U+FFFD in their place, a path nothing can open,
/// and a symbolic link to a folder outside the job's inputs (see `linkedFolderOutside`).
///
/// Symbolic links: one to a file is packed as that file's content, under the link's name
/// (what is packed is content, as `zip` does by default); one leading nowhere has none and
/// is passed over, like a socket, a named pipe or a device. Those are not left out without
/// a word either: `passOver` hears of each, and the run names them (`ArchiveStats.passedOver`).
enum ArchiveInputs {
    /// `besides`: the paths the same job packs (`PlannedJob.packedPaths`); a symbolic link
    /// into one of them loses nothing.
    /// `passOver`: told of each matching path passed over for having no content to pack,
    /// with what it is (`a named pipe`).
    static func files(of input: String, excluding own: String?, skipping runFolders: [String],
                      besides packed: [String] = [], passOver: (_ path: String, _ kind: String) -> Void = { _, _ in }) throws(JobFailure) -> [String] {
        if Glob.isPattern(input) { return try expand(input, skipping: runFolders, besides: packed, passOver: passOver).filter { $0 != own } }
        var info = stat()
        if stat(input, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            return try expand(input + "/**", skipping: runFolders, besides: packed, passOver: passOver).filter { $0 != own }
        }
        return [input]
    }

    /// Why a path input (not a glob) cannot be packed because nothing is there, or nil.
    ///
    /// Without this the writer failed on it (`cannot read …: No such file or directory
    /// (libarchive 2)`), and `plan` counted it as an input of unknown size. The reminder
    /// is for the usual cause: a path written relative to the manifest's folder, where
    /// archive inputs are relative to `outputDir`. Not part of `files(of:)`: a standing
    /// `removeSources` archive (`PackedSources`) is recognised by its inputs being gone.
    static func missing(_ input: String) -> String? {
        guard !Glob.isPattern(input), FileStamp.of(input) == nil else { return nil }
        return "\(input) does not exist (an archive's inputs are job ids, or paths under outputDir)"
    }

    /// What a run would meet walking `input`, for `plan`: nil when every file can be packed
    /// (or the input is a job's output, or a single path).
    static func problem(walking input: JobInput, own: String, skipping runFolders: [String], besides packed: [String]) -> JobFailure? {
        guard case .path(let pattern) = input else { return nil }
        do {
            _ = try files(of: pattern, excluding: own, skipping: runFolders, besides: packed)
            return nil
        } catch {
            return error
        }
    }

    /// Files under the pattern's fixed leading folder that match it, outside `runFolders`.
    static func expand(_ pattern: String, skipping runFolders: [String], besides packed: [String] = [],
                       passOver: (_ path: String, _ kind: String) -> Void = { _, _ in }) throws(JobFailure) -> [String] {
        let fixed = Glob.fixedFolder(of: pattern)
        if runFolders.contains(where: { PathText.isWithin(fixed, folder: $0) }) { return [] }
        let glob = Glob(pattern)
        var info = stat()
        if stat(fixed, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { try checkReadable(fixed) }
        guard let walker = FileManager.default.enumerator(atPath: fixed) else { return [] }
        var matches: [String] = []
        while let relative = walker.nextObject() as? String {
            let full = fixed + "/" + relative
            if runFolders.contains(full) {
                walker.skipDescendants()
                continue
            }
            // Regular files only, as `tar` packs their content: a pipe in the folder would
            // be waited on forever, and a socket or device has no content to pack.
            var info = stat()
            guard stat(full, &info) == 0 else {
                if relative.contains("\u{FFFD}"), glob.matches(full) { throw nonUTF8(full) }
                // A symbolic link leading nowhere (or a file removed meanwhile).
                if glob.matches(full), lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                    passOver(full, "a symbolic link to nothing")
                }
                continue
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                // A folder the pattern cannot reach inside (`big*.bin` and an extraction's
                // folder beside it) is not walked: it may hold many files, or be swapped by
                // an extraction the planner let run meanwhile.
                guard glob.canMatchInside(full) else {
                    walker.skipDescendants()
                    continue
                }
                if let failure = linkedFolderOutside(full, walking: [fixed] + packed) { throw failure }
                try checkReadable(full)
            }
            if info.st_mode & S_IFMT == S_IFREG,
               !PathText.isInProgress(full), glob.matches(full) {
                matches.append(full)
            } else if info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFDIR, glob.matches(full) {
                passOver(full, DestinationCheck.kind(info.st_mode))
            }
        }
        return matches.sorted()
    }

    /// Why an input named by its path cannot be packed: a pipe, device or socket (the
    /// writer refuses those rather than wait on them); nil for a file, a folder, a glob,
    /// a job's output or a path not there yet. `plan` says it too.
    static func unpackable(_ input: JobInput) -> String? {
        guard case .path(let path) = input, !Glob.isPattern(path) else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG, type != S_IFDIR else { return nil }
        return "\(path) is \(DestinationCheck.kind(info.st_mode)), not a file; only files are packed"
    }

    /// Why a folder met on the walk cannot be packed: it is a symbolic link (which the walk
    /// does not follow, as a link to a folder above it would never end) to a folder outside
    /// the ones the job packs (`packed`, the walked one first), whose files would be left out
    /// of the archive without a word. nil for a real folder, and for a link into a packed
    /// folder: its files are packed under their own names (`current -> releases/7` beside
    /// `releases/`).
    private static func linkedFolderOutside(_ path: String, walking packed: [String]) -> JobFailure? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
              let target = realpath(path, nil) else { return nil }
        defer { free(target) }
        let resolved = String(cString: target)
        for folder in packed {
            let real = realpath(folder, nil).map { p in defer { free(p) }; return String(cString: p) } ?? folder
            if PathText.isWithin(resolved, folder: real) { return nil }
        }
        return JobFailure(kind: .permanent, code: "link-outside",
                          message: "\(path) is a symbolic link to the folder \(resolved), outside \(packed[0]), and its files would be left out; "
                              + "name that folder as an input too, or put the folder itself in the link's place")
    }

    /// A folder the walk cannot list, which it would pass over in silence.
    private static func checkReadable(_ folder: String) throws(JobFailure) {
        guard access(folder, R_OK | X_OK) != 0 else { return }
        let code = errno
        throw JobFailure(kind: .local, code: ErrnoName.name(code), message: "cannot read the folder \(folder): \(String(cString: strerror(code)))")
    }

    private static func nonUTF8(_ path: String) -> JobFailure {
        JobFailure(kind: .permanent, code: "non-utf8-name", message: "cannot pack \(path): its name is not UTF-8 (\u{FFFD} stands for the bytes that are not), "
            + "and only UTF-8 names can be packed; rename it (convmv -f latin1 -t utf8, for example)")
    }
}
