/// What an HTTP header's value may hold: any byte but control characters (RFC 9110 §5.5:
/// visible characters, space, tab, and bytes of non-ASCII text).
///
/// libcurl sends a value as it is given, and ends a response's header line at `\n` only.
/// So a line break in a value we send ends the header early (a value `a\r\nX: 1` sent a
/// header of its own; a token with a trailing newline ended the request's headers), and a
/// bare `\r` in a validator a server sent would go back to it in our request. Checked on
/// bytes: Swift reads `\r\n` as one `Character`, which a comparison with `"\r"` misses.
public enum HeaderText {
    /// Whether `text` can be sent as a header's value as it is.
    public static func canCarry(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 } }
    }
}
