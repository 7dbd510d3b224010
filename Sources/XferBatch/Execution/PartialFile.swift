import Foundation

/// Opens a partial file (`<to>.xferpart`) to write, never through anything else found at
/// its name.
///
/// A partial is a plain file a run made. Something else at that name is not one: opened
/// as it was, a symbolic link (planted in a shared download folder, or left by a tool)
/// had the download written into the file it leads to, emptied first (a user's
/// `~/.bashrc`), and was then renamed into place as the "download"; a FIFO blocked the job
/// for ever, past Ctrl-C. So the name is opened with `O_NOFOLLOW` and `O_NONBLOCK` (a FIFO
/// without a reader refuses at once), and anything but a regular file with one link
/// (another name would see our writes) is removed: the name only, never what it leads to.
///
/// A folder at the name is not removed: it is the user's, and the error names it.
enum PartialFile {
    /// Why no descriptor was given.
    enum Failure: Error, Equatable {
        /// The system's refusal (`errno`): no folder (ENOENT), no permission, a folder there.
        case system(Int32)
        /// A partial to continue at `resumeFrom` is gone, shorter, or was not a file: the
        /// attempt cannot continue it, and the next one decides again from what is there.
        case notContinuable(String)

        /// The job's failure: the system's refusal is local, naming `partial`; a partial
        /// that cannot be continued is worth another attempt.
        func jobFailure(partial: String) -> JobFailure {
            switch self {
            case .system(let code):
                errno = code
                return JobRunner.localFailure("cannot create \(partial)")
            case .notContinuable(let why):
                return JobFailure(kind: .transient, code: "partial", message: why)
            }
        }
    }

    /// The partial at `path`, open to write: created empty when nothing was there
    /// (`created`), else the file found, untouched (the caller locks it before cutting it,
    /// so another run's partial is left as it is).
    ///
    /// - Parameter resumeFrom: 0 for a new body; else the offset a partial found must
    ///   reach, or `notContinuable` (a new empty file would be extended with zeros).
    static func open(_ path: String, resumeFrom: Int64) throws(Failure) -> (fd: Int32, created: Bool) {
        // Two rounds: a foreign entry is removed once, then the name is made ours.
        for _ in 0..<2 {
            if resumeFrom == 0 {
                let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if fd >= 0 { return (fd, true) }
                guard errno == EEXIST else { throw .system(errno) }
            }
            switch found(path) {
            case .file(let fd, let size):
                guard size >= resumeFrom else {
                    close(fd)
                    throw .notContinuable("\(path) is shorter (\(size) bytes) than the \(resumeFrom) bytes recorded, so it cannot be continued")
                }
                return (fd, false)
            case .gone where resumeFrom > 0:
                throw .notContinuable("\(path) was removed, so it cannot be continued")
            case .gone:
                continue  // removed since `O_EXCL` saw it: made anew
            case .foreign:
                guard unlink(path) == 0 || errno == ENOENT else { throw .system(errno) }
                if resumeFrom > 0 {
                    throw .notContinuable("\(path) was not a plain file (it is removed), so it cannot be continued")
                }
            case .refused(let code):
                throw .system(code)
            }
        }
        throw .system(EEXIST)
    }

    /// What is at `path` already.
    private enum Found {
        case file(fd: Int32, size: Int64)
        case gone
        /// A symbolic link, FIFO, socket, device, or a file with other names.
        case foreign
        case refused(Int32)
    }

    private static func found(_ path: String) -> Found {
        // Looked at first, so that nothing but a file is opened (opening a device can act on
        // it); then checked again on the descriptor, in case the name changed in between.
        var seen = stat()
        guard lstat(path, &seen) == 0 else { return errno == ENOENT ? .gone : .refused(errno) }
        if seen.st_mode & S_IFMT == S_IFDIR { return .refused(EISDIR) }
        guard FileStamp.isLonePlainFile(seen) else { return .foreign }
        let fd = Glibc.open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .gone
            case ELOOP, ENXIO: return .foreign  // a link (O_NOFOLLOW); a FIFO or socket with no reader
            default: return .refused(errno)
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            return .refused(code)
        }
        guard FileStamp.isLonePlainFile(info) else {
            close(fd)
            return .foreign
        }
        // Writes to a regular file never wait; cleared all the same, for what comes after.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .file(fd: fd, size: Int64(info.st_size))
    }
}
