extension HeaderValue {
    /// Whether `text` can be sent as a header's value: any byte but control characters
    /// (RFC 9110 §5.5: visible characters, space, tab, and bytes of non-ASCII text).
    ///
    /// libcurl sends a value as it is given, so a line break in one ends the header early: a
    /// value `a\r\nX: 1` sent a header of its own, and a token read from a variable with a
    /// trailing newline (`echo "$TOKEN" > …`, a secret stored from a file) ended the
    /// request's headers after it. Checked on bytes: Swift reads `\r\n` as one `Character`,
    /// which a comparison with `"\r"` or `"\n"` misses.
    static func canCarry(_ text: String) -> Bool {
        ASCII.allSatisfy(text) { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }
    }
}
