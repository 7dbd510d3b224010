/// One problem found in a manifest, tied to the JSON path it concerns.
///
/// `offset` is the byte offset when the decoder knew it; otherwise the reporter
/// looks the path up in the parsed document.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public var path: JSONPath
    public var message: String
    public var offset: Int?

    public init(_ path: JSONPath, _ message: String, offset: Int? = nil) {
        self.path = path
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(path): \(message)" }
}

/// A manifest that cannot be run: every problem found in one pass.
///
/// Rendered one line per problem as `FILE:LINE:COL: json.path: message` (exit code 2).
public struct ManifestError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// One problem with its resolved position, when known.
    public struct Problem: Sendable {
        public var diagnostic: Diagnostic
        public var line: Int?
        public var column: Int?
    }

    /// Problems in source order.
    public var problems: [Problem]

    public init(file: String, problems: [Problem]) {
        self.file = file
        self.problems = problems
    }

    /// An error about the file as a whole (unreadable, too large), with no position.
    public init(file: String, message: String) {
        self.file = file
        self.problems = [Problem(diagnostic: Diagnostic(.root, message), line: nil, column: nil)]
    }

    public var lines: [String] {
        problems.map { p in
            var prefix = file
            if let line = p.line, let column = p.column { prefix += ":\(line):\(column)" }
            if p.diagnostic.path.components.isEmpty { return "\(prefix): \(p.diagnostic.message)" }
            return "\(prefix): \(p.diagnostic.path): \(p.diagnostic.message)"
        }
    }

    public var description: String { lines.joined(separator: "\n") }
}
