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
    public func load(path: String) throws(ManifestError) -> LoadedManifest {
        if path == Self.standardInput {
            return try decode(bytes: try Self.readStandardInput(), path: Self.standardInputName, directory: PathText.absolute("."))
        }
        let bytes: [UInt8]
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let type = attributes[.type] as? FileAttributeType, type == .typeDirectory {
                throw ManifestError(file: path, message: "is a folder; give the path of a manifest file")
            }
            if let size = attributes[.size] as? NSNumber, size.intValue > Self.maxBytes {
                throw ManifestError(file: path, message: "the manifest is \(ByteSize.format(size.int64Value)); the limit is \(ByteSize.format(Int64(Self.maxBytes))) (split the batch into several manifests)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ManifestError(file: path, message: "cannot read the file (check that it exists and is readable)")
            }
            guard data.count <= Self.maxBytes else {
                throw ManifestError(file: path, message: "the manifest is larger than \(ByteSize.format(Int64(Self.maxBytes)))")
            }
            bytes = [UInt8](data)
        } catch let error as ManifestError {
            throw error
        } catch {
            throw ManifestError(file: path, message: "cannot read the file: no such file or not readable")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try decode(bytes: bytes, path: path, directory: PathText.absolute(directory))
    }

    /// All of standard input, up to `maxBytes`.
    private static func readStandardInput() throws(ManifestError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw ManifestError(file: standardInputName, message: "cannot read standard input: \(String(cString: strerror(errno)))") }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            guard bytes.count <= maxBytes else {
                throw ManifestError(file: standardInputName, message: "the manifest is larger than \(ByteSize.format(Int64(maxBytes))) (split the batch into several manifests)")
            }
        }
    }

    /// Decodes manifest bytes; `directory` is what relative paths resolve against.
    public func decode(bytes: [UInt8], path: String, directory: String) throws(ManifestError) -> LoadedManifest {
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
        return LoadedManifest(manifest: manifest, source: source, directory: directory)
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
}

extension ManifestError {
    /// Problems positioned in `source`: by their own offset, else by looking their path up
    /// in `root`; sorted by position so the output reads top to bottom.
    public init(source: SourceText, root: JSONNode?, diagnostics: [Diagnostic]) {
        let lines = source.lineIndex()
        let positioned = diagnostics.enumerated().map { i, d -> (Int, Int, Problem) in
            let offset = d.offset ?? root.flatMap { d.path.locate(in: $0)?.offset }
            guard let offset else { return (Int.max, i, Problem(diagnostic: d, line: nil, column: nil)) }
            let (line, column) = lines.lineAndColumn(of: offset)
            return (offset, i, Problem(diagnostic: d, line: line, column: column))
        }
        let sorted = positioned.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
        self.init(file: source.path, problems: sorted)
    }
}
