extension Int64 {
    /// Adds `other`, stopping at `Int64.max` (or `.min`) instead of trapping.
    ///
    /// For totals of sizes a manifest declares: each may be up to 4 EiB (`Int64.max / 2`),
    /// so a few of them overflow 64 bits, and `plan` crashed adding them up for its
    /// disk-space check. A total that saturates is still far above any free space.
    mutating func addSaturating(_ other: Int64) {
        self = addingSaturating(other)
    }

    /// `self + other`, stopping at `Int64.max` (or `.min`): also for a server's
    /// Content-Length added to the bytes a resume already has.
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
