import Foundation

/// Creates folders with `mkdir(2)`, so that a failure says what is in the way.
///
/// Foundation's `createDirectory` reports failures as Cocoa errors ("NSCocoaErrorDomain
/// error 512", or a dump of its user info) that a user cannot act on. Here the message
/// names the folder asked for and the cause: which part of the path is a file where a
/// folder should be, or what the system refused (read-only file system, permission denied,
/// no space left).
public enum Folders {
    /// Why a folder could not be created; `message` is a whole sentence naming the folder.
    public struct CreationError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Creates `folder` and its missing parents; does nothing when it exists. Safe against
    /// another process creating the same folders at the same time. Returns the folders it
    /// made, outermost first.
    @discardableResult
    public static func create(_ folder: String) throws(CreationError) -> [String] {
        var made: [String] = []
        for path in try missing(folder).reversed() {
            if mkdir(path, 0o777) == 0 {
                made.append(path)
            } else if errno != EEXIST {
                throw failure(folder, at: path)
            }
        }
        return made
    }

    /// The folders `create` would make, deepest first (none: `folder` exists), or what it
    /// would fail on at once (a file where a folder should be); found without creating
    /// anything, walking up to the nearest existing ancestor. What `plan` reports.
    public static func missing(_ folder: String) throws(CreationError) -> [String] {
        var path = folder
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        var missing: [String] = []
        while path != "/", path != "." {
            var info = stat()
            if stat(path, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    let inTheWay = path == folder ? "a file of that name is in the way" : "\(path) is a file, not a folder"
                    throw CreationError(message: "cannot create the folder \(folder): \(inTheWay)")
                }
                break
            }
            // ENOTDIR: a part further up is a file; the walk up finds and names it.
            guard errno == ENOENT || errno == ENOTDIR else { throw failure(folder, at: path) }
            missing.append(path)
            path = PathText.parent(path)
        }
        return missing
    }

    /// Why a run could not write in `folder`, creating it and its missing parents first,
    /// or nil: a file in the way (`missing`), or the nearest existing folder refusing
    /// (permission denied, read-only file system), as `access(2)` answers for this process.
    /// For `plan`, which creates nothing; a run learns the same from `mkdir` and `open`.
    public static func writeProblem(in folder: String) -> CreationError? {
        do { return refusal(writingIn: folder, creating: try missing(folder)) } catch { return error }
    }

    /// `writeProblem` when `missing(folder)` is known: the nearest existing folder's refusal.
    public static func refusal(writingIn folder: String, creating toCreate: [String]) -> CreationError? {
        let existing = toCreate.last.map(PathText.parent) ?? folder
        guard access(existing, W_OK | X_OK) != 0 else { return nil }
        let reason = String(cString: strerror(errno))
        return toCreate.isEmpty ? CreationError(message: "cannot write in the folder \(folder): \(reason)")
            : CreationError(message: "cannot create the folder \(folder): \(existing): \(reason)")
    }

    private static func failure(_ folder: String, at path: String) -> CreationError {
        let reason = String(cString: strerror(errno))
        return CreationError(message: "cannot create the folder \(folder): \(path == folder ? "" : "\(path): ")\(reason)")
    }
}
