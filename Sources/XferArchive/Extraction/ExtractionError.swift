/// Why an extraction stopped. Whatever the case, nothing was installed at the target and
/// the staging folder was removed.
public enum ExtractionError: Error, Sendable, CustomStringConvertible {
    /// A safety rule an entry broke.
    public enum Reason: Error, Sendable, Equatable {
        case emptyName
        case absolutePath
        case parentReference
        case nameTooLong
        /// A symbolic link whose target (given) leads outside the target folder.
        case linkEscapes(target: String)
        /// A hard link to something other than a regular file extracted before it.
        case badHardLink(target: String)
        /// A device, FIFO or socket (the kind given).
        case specialFile(kind: String)
        /// The path passes through something that is not a folder (a link or a file).
        case notAFolder(prefix: String)
        /// One name used for a folder and for something else.
        case folderConflict
    }

    /// An entry was refused; `entry` is its name as the archive gives it.
    case unsafeEntry(entry: String, reason: Reason)
    /// More entries than allowed (an archive bomb, or a limit set too low).
    case tooManyEntries(limit: Int)
    /// More bytes than allowed once extracted; `entry` is where the limit was crossed.
    case tooManyBytes(limit: Int64, entry: String)
    /// libarchive could not read the archive (corrupt, truncated, wrong format).
    case unreadable(ArchiveError)
    /// An entry is encrypted (a zip made with a password): no passphrase can be given.
    case encrypted(entry: String)
    /// The caller asked to stop (its progress callback returned false).
    case cancelled
    /// A local file operation failed (ENOSPC, EACCES...).
    case io(path: String, code: Int32, message: String)
    /// The folder at the target holds `count` files the archive does not have (`examples`
    /// names a few, relative to it), which replacing it would delete.
    case foreignFiles(folder: String, examples: [String], count: Int)

    public var description: String {
        switch self {
        case .unsafeEntry(let entry, let reason): "refused entry \"\(entry)\": \(reason.text)"
        case .tooManyEntries(let limit): "the archive has more than \(limit) entries (maxEntries); refused as a possible archive bomb"
        case .tooManyBytes(let limit, let entry):
            "extracting \"\(entry)\" would exceed \(limit) bytes (maxBytes); refused as a possible archive bomb"
        case .unreadable(let error): "cannot read the archive: \(error.message)"
        case .encrypted(let entry):
            "entry \"\(entry)\" is encrypted, and xferbatch does not decrypt archives: unpack it with a tool given the passphrase, or have it published unencrypted"
        case .cancelled: "cancelled"
        case .io(let path, _, let message): "\(path): \(message)"
        case .foreignFiles(let folder, let examples, let count):
            "\(folder) holds \(count == 1 ? "a file" : "\(count) files") the archive does not have (\(examples.joined(separator: ", "))\(count > examples.count ? ", …" : "")), "
                + "which extracting would delete: move \(count == 1 ? "it" : "them") away or extract into another folder"
        }
    }
}

extension ExtractionError.Reason {
    var text: String {
        switch self {
        case .emptyName: "it has an empty name"
        case .absolutePath: "absolute paths are not allowed"
        case .parentReference: "\"..\" in a name could write outside the target folder"
        case .nameTooLong: "the name is too long"
        case .linkEscapes(let target): "symbolic link to \"\(target)\" points outside the target folder"
        case .badHardLink(let target): "hard link to \"\(target)\", which is not a file extracted before it inside the target folder"
        case .specialFile(let kind): "\(kind) entries are not extracted"
        case .notAFolder(let prefix): "\"\(prefix)\" is a link or a file, not a folder; nothing is written through links"
        case .folderConflict: "the same name is used for a folder and for something else"
        }
    }
}
