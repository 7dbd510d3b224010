/// A list shown to people: its first items, then how many more there are.
///
/// A job can name thousands of others (an archive of every download depends on each), and
/// a line listing them all helps no reader of a plan or a log. Machine-read outputs
/// (`--format json`, reports) keep the whole list.
enum FoldedList {
    /// `a, b, c` when there are at most `limit` items, else `a, b, …, j and 1990 more`.
    static func text(_ items: [String], limit: Int = defaultLimit) -> String {
        guard items.count > limit else { return items.joined(separator: ", ") }
        return items.prefix(limit).joined(separator: ", ") + " and \(items.count - limit) more"
    }

    static let defaultLimit = 10
}
