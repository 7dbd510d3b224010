import Foundation

/// Reads a manifest file and decodes it, turning every failure into a `ManifestError`.
///
/// Limits keep hostile or accidental input from hurting: files over `maxBytes` are
/// refused before being read, bytes that are not UTF-8 are refused with their offset,
/// and the parser bounds nesting depth.
public struct ManifestLoader: Sendable {
    /// Largest manifest accepted (32 MiB, about 200,000 jobs).
    public static let maxBytes = 32 * 1024 * 1024

    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The manifest path that means standard input (`xferbatch run -`): a manifest a CI
    /// step generates and pipes in. Relative paths then resolve against the current folder.
    public static let standardInput = "-"
    /// How messages and the plan name a manifest read from standard input.
    public static let standardInputName = "<stdin>"

    /// Loads the manifest at `path` (as the user typed it; errors show it that way), or
    /// from standard input for `-`.
    ///
    /// A path that is not a regular file (`/dev/stdin`, a shell's `<(generate)`, a named
    /// pipe) is read to its end like `-`, and its relative paths resolve against the
    /// current folder too: the folder such a path sits in (`/dev/fd`) says nothing about
    /// where the outputs belong, and could not hold a state folder.
    public func load(path: String) throws(ManifestError) -> LoadedManifest {
        if path == Self.standardInput {
            let bytes = try Self.readToEnd(STDIN_FILENO, name: Self.standardInputName)
            return try decode(bytes: bytes, path: Self.standardInputName, directory: PathText.absolute("."), isStream: true)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ManifestError(file: path, message: "cannot read the file: \(Self.reason(errno))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ManifestError(file: path, message: "cannot read the file: \(Self.reason(errno))") }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw ManifestError(file: path, message: "is a folder; give the path of a manifest file")
        case S_IFREG:
            if info.st_size > Self.maxBytes {
                let (size, limit) = ByteSize.format(Int64(info.st_size), beside: Int64(Self.maxBytes))
                throw ManifestError(file: path, message: "the manifest is \(size); the limit is \(limit) (split the batch into several manifests)")
            }
            // Lexically, as relative paths in it resolve (`URL(fileURLWithPath:)` took 700 K
            // instructions, before the first transfer).
            let directory = PathText.parent(PathText.absolute(path))
            return try decode(bytes: try Self.readToEnd(fd, name: path), path: path, directory: directory)
        default:
            return try decode(bytes: try Self.readToEnd(fd, name: path), path: path, directory: PathText.absolute("."), isStream: true)
        }
    }

    /// Why a manifest could not be opened, in the user's words.
    private static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case ENOTDIR: "no such file (a folder on its path is a file)"
        case EACCES: "permission denied"
        default: String(cString: strerror(code))
        }
    }

    /// All of `fd` (standard input, a pipe, or a file that may still grow), up to `maxBytes`.
    private static func readToEnd(_ fd: Int32, name: String) throws(ManifestError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw ManifestError(file: name, message: "cannot read the file: \(String(cString: strerror(errno)))") }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            guard bytes.count <= maxBytes else {
                throw ManifestError(file: name, message: "the manifest is larger than \(ByteSize.format(Int64(maxBytes))) (split the batch into several manifests)")
            }
        }
    }

    /// Decodes manifest bytes; `directory` is what relative paths resolve against.
    /// `isStream`: the bytes came from standard input or a pipe, not a file (see `load`).
    public func decode(bytes: [UInt8], path: String, directory: String, isStream: Bool = false) throws(ManifestError) -> LoadedManifest {
        let source = SourceText(path: path, bytes: bytes)
        if let bad = UTF8Check.firstInvalidOffset(bytes) {
            throw ManifestError(source: source, root: nil, diagnostics: [
                Diagnostic(.root, "the file is not valid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true)) at offset \(bad))", offset: bad),
            ])
        }
        let decoder = ManifestDecoder(environment: environment)
        let root: JSONNode
        do {
            // Jobs are decoded one by one as the parser reaches them (see `JSONParser`).
            root = try JSONParser.parse(bytes, streamingElementsOf: "jobs") { node, index in
                decoder.decodeStreamedJob(node, index: index)
            }
        } catch {
            throw ManifestError(source: source, root: nil, diagnostics: [Diagnostic(.root, "invalid JSON: \(error.message)", offset: error.offset)])
        }
        let manifest = decoder.decodeManifest(root)
        guard let manifest, decoder.diagnostics.isEmpty else {
            throw ManifestError(source: source, root: root, diagnostics: decoder.diagnostics)
        }
        return LoadedManifest(manifest: manifest, source: source, directory: directory, isStream: isStream)
    }
}

/// A decoded manifest with what is needed to point at its lines later.
///
/// The parsed JSON tree is not kept (it is the largest structure for big manifests);
/// should the planner find a problem, the source is parsed again to position it.
public struct LoadedManifest: Sendable {
    public var manifest: Manifest
    public var source: SourceText
    /// Absolute folder of the manifest file; relative paths resolve against it.
    public var directory: String
    /// Read from standard input or a pipe: `directory` is the current folder, and the
    /// state folder is named `stdin` (see `Plan.defaultStateFolder`).
    public var isStream = false
}

extension ManifestError {
    /// Problems positioned in `source`: by their own offset, else by looking their path up
    /// in `root`; sorted by position so the output reads top to bottom.
    public init(source: SourceText, root: JSONNode?, diagnostics: [Diagnostic]) {
        let located = diagnostics.enumerated().map { i, d in
            (offset: d.offset ?? root.flatMap { d.path.locate(in: $0)?.offset }, order: i, diagnostic: d)
        }.sorted { ($0.offset ?? Int.max, $0.order) < ($1.offset ?? Int.max, $1.order) }
        let known = located.prefix { $0.offset != nil }
        let positions = source.lineIndex().linesAndColumns(ofAscending: known.compactMap(\.offset))
        let sorted = zip(known, positions).map { Problem(diagnostic: $0.diagnostic, line: $1.line, column: $1.column) }
            + located.dropFirst(known.count).map { Problem(diagnostic: $0.diagnostic, line: nil, column: nil) }
        self.init(file: source.path, problems: sorted)
    }
}
