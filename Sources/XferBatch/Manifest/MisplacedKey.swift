/// Where a key that is unknown in one object belongs, when it is a key of another: the
/// usual mistake is not a misspelling but a level (`dependsOn` inside `download`, `retry`
/// beside `id`), and "unknown key" alone sent people to the schema to find out.
enum MisplacedKey {
    /// A phrase saying where `key` goes, or nil when it is no manifest key anywhere.
    static func home(of key: String) -> String? {
        if ManifestDecoder.transferKeys.contains(key) {
            return "a transfer setting: put it in the job's \"download\" or \"upload\", or in \"defaults\" for every job"
        }
        if ManifestDecoder.jobKeys.contains(key) { return "a job's key: put it beside the job's \"id\"" }
        if ManifestDecoder.limitKeys.contains(key) { return "a limit: put it in \"limits\"" }
        if ManifestDecoder.topLevelKeys.contains(key) { return "a key of the manifest itself: put it beside \"jobs\"" }
        return nil
    }
}
