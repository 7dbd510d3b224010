extension ManifestDecoder {
    static let topLevelKeys: KeySet = ["$schema", "version", "name", "outputDir", "defaults", "limits", "jobs"]
    static let limitKeys: KeySet = ["concurrency", "perHost", "bandwidth"]

    /// The whole manifest, or nil when the document is unusable (problems are in `diagnostics`).
    func decodeManifest(_ root: JSONNode) -> Manifest? {
        guard let top = members(of: root, allowed: Self.topLevelKeys) else { return nil }
        var manifest = Manifest()
        _ = field(top, "$schema") { rawString($0) }
        guard let version = field(top, "version", required: true, { integer($0, in: Int64.min / 2...Int64.max / 2) }) else {
            return nil
        }
        guard version == Int64(Manifest.supportedVersion) else {
            // Jobs of another format version may well look wrong to us: say only this.
            diagnostics.removeAll { $0.path.components.first == .key("jobs") }
            within("version") {
                report("unsupported manifest version \(version); this xferbatch reads version \(Manifest.supportedVersion)", at: top["version"]?.value.offset)
            }
            return nil
        }
        manifest.name = field(top, "name") { string($0) }
        manifest.outputDir = field(top, "outputDir") { destinationPath($0) } ?? "."
        manifest.defaults = field(top, "defaults") { decodeTransferSettings($0, allowed: Self.transferKeys) } ?? TransferSettings()
        manifest.limits = field(top, "limits") { decodeLimits($0) } ?? Limits()
        manifest.jobs = field(top, "jobs", required: true) { node -> [Job]? in
            // The parser streamed a `jobs` array to `decodeStreamedJob`, leaving an empty one here.
            if case .array(let items) = node.value, items.isEmpty, streamedJobCount > 0 { return streamedJobs }
            return decodeJobs(node)
        } ?? []
        return manifest
    }

    func decodeLimits(_ node: JSONNode) -> Limits? {
        guard let m = members(of: node, allowed: Self.limitKeys) else { return nil }
        var limits = Limits()
        if let c = field(m, "concurrency", { int($0, in: 1...10_000) }) { limits.concurrency = c }
        if let p = field(m, "perHost", { int($0, in: 1...10_000) }) { limits.perHost = p }
        limits.bandwidth = field(m, "bandwidth") { node -> Int64? in
            guard let text = string(node) else { return nil }
            guard let rate = ByteSize.parseRate(text) else {
                report("\"\(text)\" is not a rate; write a size per second, e.g. \"50MiB/s\"", at: node.offset)
                return nil
            }
            guard rate > 0 else {
                report("\"\(text)\" would let nothing through; leave bandwidth out for no cap", at: node.offset)
                return nil
            }
            return rate
        }
        return limits
    }
}
