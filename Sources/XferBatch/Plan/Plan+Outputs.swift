extension Plan {
    /// What the plan's jobs may leave on disk, for `xferbatch clean`.
    public struct WrittenPaths: Sendable, Equatable {
        /// Destinations: the user's files, deleted only by `clean --outputs`.
        public var outputs: [String] = []
        /// Temporary names (`.xferpart` files): of no use without the state folder.
        public var partials: [String] = []
        /// Extraction folders (outputs).
        public var folders: [String] = []
        /// Their staging folders (temporary).
        public var stagingFolders: [String] = []
    }

    /// The files and folders the plan's jobs write. Uploads write nothing locally. A
    /// download into a folder is named by the server at run time, so only its partial is
    /// known here; the checkpoint store records the final name.
    public func writtenPaths() -> WrittenPaths {
        var written = WrittenPaths()
        for job in jobs {
            switch job.action {
            case .download(let d):
                if !d.namesFileAtRunTime { written.outputs.append(d.to) }
                written.partials.append(d.partialPath(jobID: job.id))
            case .archive(let a):
                written.outputs.append(a.to)
                written.partials.append(a.partialPath)
            case .extract(let e):
                written.folders.append(e.folder)
                written.stagingFolders.append(e.stagingFolder)
            case .upload: break
            }
        }
        return written
    }
}
