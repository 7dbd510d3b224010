/// Characters that must not reach a terminal, a log or a file name as they are.
///
/// C0 controls and DEL, and also the C1 controls (U+0080 to U+009F: U+009B is CSI, which
/// some terminals take as the start of an escape sequence, as they take ESC), and the
/// bidirectional overrides and isolates, which make a line display in another order than
/// it is written ("Trojan Source"): a server's error page, an FTP reply, a redirect's
/// Location or a Content-Disposition name can carry any of them into our messages.
public enum ControlCharacters {
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi marks, embeddings, overrides, isolates
        default: false
        }
    }

    /// `text` with each such character replaced by a space.
    public static func spaced(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: contains) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(contains(scalar) ? " " : scalar) }
        return String(out)
    }
}
