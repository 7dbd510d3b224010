/// The manifest's bytes and a line index, turning byte offsets into `LINE:COL`.
///
/// Columns count Unicode scalars (what an editor shows), lines start at 1.
public struct SourceText: Sendable {
    public let path: String
    public let bytes: [UInt8]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }

    /// Where each line starts; built only when a problem must be positioned.
    public func lineIndex() -> LineIndex {
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        return LineIndex(bytes: bytes, lineStarts: starts)
    }

    /// One-based line and column of a byte offset (builds a line index: for one-off use).
    public func lineAndColumn(of offset: Int) -> (line: Int, column: Int) {
        lineIndex().lineAndColumn(of: offset)
    }
}

/// Byte offsets to `LINE:COL` for one source.
public struct LineIndex: Sendable {
    let bytes: [UInt8]
    let lineStarts: [Int]

    /// One-based line and column of a byte offset (clamped to the file).
    public func lineAndColumn(of offset: Int) -> (line: Int, column: Int) {
        linesAndColumns(ofAscending: [offset])[0]
    }

    /// `lineAndColumn(of:)` of each offset, in one pass over the bytes when `offsets` are in
    /// ascending order. Columns are counted from the line's start, so positioning each of a
    /// thousand problems in a minified manifest (one line of megabytes) on its own would
    /// count through the line a thousand times.
    public func linesAndColumns(ofAscending offsets: [Int]) -> [(line: Int, column: Int)] {
        var line = 0
        var i = 0, column = 1
        return offsets.map { offset in
            let offset = max(0, min(offset, bytes.count))
            if offset < i { (line, i, column) = (0, 0, 1) }  // out of order: start over
            // The offset's line, searched from the current one on.
            var lo = line, hi = lineStarts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
            }
            if lo != line || i < lineStarts[line] {
                line = lo
                i = lineStarts[line]
                column = 1
            }
            while i < offset {
                if bytes[i] & 0xC0 != 0x80 { column += 1 }
                i += 1
            }
            // Offset inside a multi-byte scalar: count it as the scalar's column.
            let inside = offset < bytes.count && bytes[offset] & 0xC0 == 0x80
            return (line + 1, inside ? column - 1 : column)
        }
    }
}
