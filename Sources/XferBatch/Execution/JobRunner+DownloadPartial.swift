import Foundation

extension JobRunner {
    /// The partial file the attempt writes, open, locked and cut to `resumeFrom`, once the
    /// destination is known to be usable and the disk to have room for what is still to
    /// come (the manifest's `size`; what it admits, the caller releases).
    ///
    /// - Returns: its descriptor, which stays open (and so locked) until the file is renamed
    ///   into place or given up.
    func openPartial(_ attempt: DownloadAttempt) throws -> Int32 {
        let d = attempt.download
        let partial = attempt.partial
        let resumeFrom = attempt.resumeFrom
        // An edited job starts fresh. A partial its old definition left under another name
        // (a new `to`) is of no use now, and its record is about to be replaced: deleted
        // first, so that no partial is ever left that no record names.
        if attempt.stored?.fingerprint != attempt.fingerprint, let old = attempt.stored?.partialPath, old != partial, old != d.to {
            unlink(old)
        }
        if !attempt.intoFolder, let problem = DestinationCheck.problem(at: d.to, folderHint: DestinationCheck.downloadHint) {
            throw DestinationCheck.failure(problem)
        }
        if let problem = LocalFileURL.problem(d.url) { throw DestinationCheck.failure(problem) }
        if let size = d.size,
           let shortfall = space.admit(attempt.jobID, partial: partial, total: size, written: resumeFrom, folder: attempt.folder, for: d.to) {
            throw JobFailure(kind: .permanent, code: DiskSpace.failureCode, message: shortfall)
        }
        try folders.ensure(attempt.folder)
        // Usually new: created empty, it needs no truncation below (a system call per file).
        // Never through a link or a FIFO found at the partial's name (see `PartialFile`).
        func openFile() -> Result<(fd: Int32, created: Bool), PartialFile.Failure> {
            Result { () throws(PartialFile.Failure) in try PartialFile.open(partial, resumeFrom: resumeFrom) }
        }
        var opened = openFile()
        if case .failure(.system(ENOENT)) = opened {
            // The folder was removed since this run made it (a cleanup job, `rm -rf out`):
            // made again, as a new run would.
            folders.forget(attempt.folder)
            try folders.ensure(attempt.folder)
            opened = openFile()
        }
        let (fd, created) = try opened.mapError { $0.jobFailure(partial: partial) }.get()
        // Ours alone until it is renamed and closed (see `PartialLock`); taken before the
        // truncation below, so a partial another run is writing is left untouched.
        try PartialLock.take(fd, partial: partial)
        // Continue exactly at the trusted offset (from 0: emptied): after a reboot the bytes
        // past the flushed offset may be zeros or garbage.
        if !created, ftruncate(fd, off_t(resumeFrom)) != 0 {
            close(fd)
            throw Self.localFailure("cannot cut \(partial) to \(resumeFrom) bytes")
        }
        return fd
    }
}
