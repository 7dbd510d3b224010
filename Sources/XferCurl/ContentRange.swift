/// Reading a `Content-Range` header (RFC 9110 §14.4): `bytes FIRST-LAST/LENGTH`, or
/// `bytes */LENGTH` in a 416 answer. Each number is the server's word: a negative one is
/// no number (so that arithmetic on them, `LAST + 1`, cannot pass 64 bits from below).
public enum ContentRange {
    /// FIRST of `bytes FIRST-LAST/LENGTH`: where a 206 body starts.
    public static func start(of header: String) -> Int64? {
        guard let spec = spec(header), let dash = spec.firstIndex(of: "-") else { return nil }
        return number(spec[..<dash])
    }

    /// LAST of `bytes FIRST-LAST/LENGTH`: the body's last byte (inclusive).
    public static func end(of header: String) -> Int64? {
        guard let spec = spec(header), let dash = spec.firstIndex(of: "-") else { return nil }
        let rest = spec[spec.index(after: dash)...]
        return number(rest.firstIndex(of: "/").map { rest[..<$0] } ?? rest)
    }

    /// LENGTH, the whole entity's size; nil when the server wrote `*` (unknown).
    public static func completeLength(of header: String) -> Int64? {
        guard let spec = spec(header), let slash = spec.firstIndex(of: "/") else { return nil }
        return number(spec[spec.index(after: slash)...])
    }

    private static func number(_ text: Substring) -> Int64? {
        Int64(text.trimming(" ")).flatMap { $0 >= 0 ? $0 : nil }
    }

    private static func spec(_ header: String) -> Substring? {
        guard header.lowercased().hasPrefix("bytes ") else { return nil }
        return header.dropFirst(6)
    }
}
