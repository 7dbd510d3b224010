extension Plan {
    /// What the plan's jobs may leave on disk, for `xferbatch clean --outputs`: files
    /// (destinations and their temporary names) and extraction folders (with their staging
    /// folders). Uploads write nothing locally. A download into a folder is named by the
    /// server at run time, so only its partial is known here; the checkpoint store records
    /// the final name.
    public func writtenPaths() -> (files: [String], folders: [String]) {
        var files: [String] = []
        var folders: [String] = []
        for job in jobs {
            switch job.action {
            case .download(let d):
                if !d.namesFileAtRunTime { files.append(d.to) }
                files.append(d.partialPath(jobID: job.id))
            case .archive(let a): files += [a.to, a.partialPath]
            case .extract(let e): folders += [e.folder, e.stagingFolder]
            case .upload: break
            }
        }
        return (files, folders)
    }
}
