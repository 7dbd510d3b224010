extension String {
    /// A non-negative number in at least `width` digits, zero-padded (`7`, 3 -> `007`):
    /// timestamps and log times, where `String(format:)` is slow.
    init(zeroPadded value: Int, width: Int) {
        let digits = "\(value)"
        let zeros = Swift.max(0, width - digits.utf8.count)
        self = String(repeating: "0", count: zeros) + digits
    }
}
