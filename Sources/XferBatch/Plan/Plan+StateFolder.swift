extension Plan {
    /// The state folder a run uses unless told otherwise (`--state DIR`):
    /// `.xferbatch/<manifest file name>/` beside the manifest (`.xferbatch/stdin/` in the
    /// current folder for a manifest read from standard input or a pipe).
    ///
    /// One folder per manifest, not one per directory: several manifests side by side (one
    /// per cron entry, say) each keep their own checkpoints and lock. Shared, a job id both
    /// use ("docs") would count as an edited job in every other run and be downloaded
    /// again, `status` would show the other manifest's progress, `clean` would delete it,
    /// and each run would lock the others out. The full file name (not its stem) keeps
    /// `a.json` and `a.json.bak` apart.
    public var defaultStateFolder: String {
        let name = manifestIsStream ? "stdin" : PathText.lastComponent(manifestPath)
        return directory + "/" + Self.stateFolderName + "/" + name
    }

    /// The folder beside the manifests that holds each one's state folder.
    public static let stateFolderName = ".xferbatch"

    /// The folders runs keep for themselves: `.xferbatch/` beside the manifest (every
    /// manifest's default state folder) and the state folder given with `--state`. Never an
    /// archive's input: a folder input holding one would pack a checkpoint database while
    /// it is written (`outputDir: "."` with an archive of `"."` did).
    public var runFolders: [String] {
        [directory == "/" ? "/" + Self.stateFolderName : directory + "/" + Self.stateFolderName] + (givenStateFolder.map { [$0] } ?? [])
    }
}
