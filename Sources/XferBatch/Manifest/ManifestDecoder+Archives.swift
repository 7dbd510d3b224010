extension ManifestDecoder {
    static let archiveKeys: KeySet = ["from", "to", "format", "level", "prefix", "reproducible", "removeSources"]
    static let extractKeys: KeySet = ["from", "to", "format", "stripComponents", "maxBytes", "maxEntries"]

    func decodeArchive(_ node: JSONNode) -> Archive? {
        guard let m = members(of: node, allowed: Self.archiveKeys) else { return nil }
        let from = field(m, "from", required: true) { node -> [String]? in
            guard let list = stringArray(node) else { return nil }
            if list.isEmpty { report("an archive needs at least one input", at: node.offset) }
            return list
        }
        let to = field(m, "to", required: true) { destinationPath($0) }
        var format = field(m, "format") { oneOf($0, ArchiveFormat.self) }
        let level = field(m, "level") { int($0, in: 0...22) }
        let prefix = field(m, "prefix") { archivePrefix($0) } ?? ""
        let reproducible = field(m, "reproducible") { bool($0) } ?? false
        let removeSources = field(m, "removeSources") { bool($0) } ?? false
        if format == nil, let to {
            format = ArchiveFormat.inferred(from: to)
            if format == nil {
                within("format") { report("cannot tell the format from \"\(to)\"; add \"format\" (tar, tar.gz, tar.xz, tar.zst or zip)", at: node.offset) }
            }
        }
        guard let from, let to, let format else { return nil }
        return Archive(from: from, to: to, format: format, level: level, prefix: prefix,
                       reproducible: reproducible, removeSources: removeSources)
    }

    /// The folder an archive's entries are named under: relative, and no `..` in it. A
    /// prefix of `../` or `/abs/` made entries (`../a.txt`) that an extraction refuses, or
    /// writes outside its folder with a tool that does not check (zip-slip).
    func archivePrefix(_ node: JSONNode) -> String? {
        guard let s = string(node) else { return nil }
        // By bytes: by Characters, `/` joined to a mark after it (or `..` behind U+0600) hid.
        let slash = UInt8(ascii: "/")
        if s.utf8.first == slash || s.utf8.split(separator: slash, omittingEmptySubsequences: false).contains(where: { $0.elementsEqual("..".utf8) }) {
            report("\"\(s)\" would name entries outside the archive's folder (a leading / or a .. in it): "
                   + "extracting them writes elsewhere, or is refused", at: node.offset)
            return nil
        }
        return s
    }

    func decodeExtract(_ node: JSONNode) -> Extract? {
        guard let m = members(of: node, allowed: Self.extractKeys) else { return nil }
        let from = field(m, "from", required: true) { node -> String? in
            guard let id = rawString(node) else { return nil }
            if !JobID.isValid(id) { report("\"from\" names the job whose file is the archive; \"\(id)\" is not a job id", at: node.offset) }
            return id
        }
        let to = field(m, "to", required: true) { destinationPath($0) }
        let format = field(m, "format") { oneOf($0, ExtractFormatName.self) }
        let strip = field(m, "stripComponents") { int($0, in: 0...1_000) } ?? 0
        let maxBytes = field(m, "maxBytes") { size($0) } ?? Extract.defaultMaxBytes
        let maxEntries = field(m, "maxEntries") { int($0, in: 1...100_000_000) } ?? Extract.defaultMaxEntries
        guard let from, let to else { return nil }
        return Extract(from: from, to: to, format: format.flatMap { ArchiveFormat(rawValue: $0.rawValue) },
                       stripComponents: strip, maxBytes: maxBytes, maxEntries: maxEntries)
    }
}

/// The spellings of an extract job's `format`: `auto` or an archive format.
enum ExtractFormatName: String, CaseIterable {
    case auto, tar
    case tarGz = "tar.gz"
    case tarXz = "tar.xz"
    case tarZst = "tar.zst"
    case zip
}
