import XferCurl

extension ManifestDecoder {
    static let jobKeys: KeySet = ["id", "dependsOn", "optional", "priority", "allowOutsideOutputDir", "download", "upload", "archive", "extract"]
    static let actionKeys: KeySet = ["download", "upload", "archive", "extract"]
    static let downloadKeys: KeySet = ["url", "to", "sha256", "size", "refresh"] + transferKeys
    static let uploadKeys: KeySet = ["url", "from", "method", "contentType", "multipart", "createMissingDirs", "inPlace", "idempotent"] + transferKeys
    static let multipartKeys: KeySet = ["fields", "files"]
    static let multipartFileKeys: KeySet = ["field", "path", "filename", "contentType"]

    /// Decodes one element of the top-level `jobs` array as the parser streams it.
    func decodeStreamedJob(_ node: JSONNode, index: Int) {
        streamedJobCount += 1
        let job = within("jobs") { within(index: index) { decodeJob(node, index: index) } }
        if let job { streamedJobs.append(job) }
    }

    func decodeJobs(_ node: JSONNode) -> [Job]? {
        guard case .array(let items) = node.value else {
            report("expected an array of jobs, found \(node.value.typeName)", at: node.offset)
            return nil
        }
        if items.isEmpty { report("there are no jobs", at: node.offset) }
        var jobs: [Job] = []
        jobs.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            if let job = within(index: i, { decodeJob(item, index: i) }) { jobs.append(job) }
        }
        return jobs
    }

    func decodeJob(_ node: JSONNode, index: Int) -> Job? {
        guard let m = members(of: node, allowed: Self.jobKeys) else { return nil }
        let id = field(m, "id", required: true) { node -> String? in
            guard let id = rawString(node) else { return nil }
            guard JobID.isValid(id) else {
                report("job id \"\(id)\" may only contain letters, digits, '.', '_' and '-'", at: node.offset)
                return nil
            }
            return id
        }
        let dependsOn = field(m, "dependsOn") { stringArray($0, expand: false) } ?? []
        let optional = field(m, "optional") { bool($0) } ?? false
        let priority = field(m, "priority") { int($0, in: -1_000_000...1_000_000) } ?? 0
        let allowOutside = field(m, "allowOutsideOutputDir") { bool($0) } ?? false

        let present = Self.actionKeys.names.filter { m.has($0) }
        guard present.count == 1 else {
            if present.isEmpty {
                report("a job needs exactly one of \"download\", \"upload\", \"archive\" or \"extract\"", at: node.offset)
            } else {
                report("a job has exactly one of \"download\", \"upload\", \"archive\" or \"extract\", found \(present.map { "\"\($0)\"" }.joined(separator: " and "))", at: node.offset)
            }
            return nil
        }
        let action: JobAction?
        switch present[0] {
        case "download": action = field(m, "download") { decodeDownload($0) }.map(JobAction.download)
        case "upload": action = field(m, "upload") { decodeUpload($0) }.map(JobAction.upload)
        case "archive": action = field(m, "archive") { decodeArchive($0) }.map(JobAction.archive)
        default: action = field(m, "extract") { decodeExtract($0) }.map(JobAction.extract)
        }
        guard let id, let action else { return nil }
        return Job(id: id, index: index, dependsOn: dependsOn, optional: optional, priority: priority,
                   allowOutsideOutputDir: allowOutside, action: action)
    }

    func decodeDownload(_ node: JSONNode) -> Download? {
        guard let m = members(of: node, allowed: Self.downloadKeys) else { return nil }
        let url = field(m, "url", required: true) { self.url($0) }
        let to = field(m, "to") { destinationPath($0) }
        let sha = field(m, "sha256") { node -> String? in
            guard let s = string(node) else { return nil }
            var lower = s.lowercased()
            // As digests are often written (OCI, Docker, SRI-less lock files): "sha256:<hex>".
            if lower.hasPrefix("sha256:") { lower.removeFirst("sha256:".count) }
            guard lower.utf8.count == 64, ASCII.allSatisfy(lower, PercentEncoding.isHex) else {
                report("sha256 must be 64 hexadecimal digits, found \(s.utf8.count) characters", at: node.offset)
                return nil
            }
            return lower
        }
        let size = field(m, "size") { self.size($0) }
        let refresh = field(m, "refresh") { oneOf($0, RefreshMode.self) } ?? .never
        let transfer = decodeOwnTransferSettings(m)
        if transfer?.timeouts.answer != nil, let timeouts = m["timeouts"]?.value {
            within("timeouts") {
                within("answer") {
                    report("\"answer\" is for uploads (the wait for the server's answer after the last byte sent); a download's wait for its answer counts against \"stall\"",
                           at: timeouts["answer"]?.offset ?? timeouts.offset)
                }
            }
        }
        guard let url else { return nil }
        // Unless "to" is there but wrong (empty: reported already, one error per mistake).
        if url.scheme == "data", m["to"] == nil || to?.hasSuffix("/") == true {
            within("to") { report("a data: URL has no file name; give \"to\" a file name", at: node.offset) }
        }
        if url.scheme == "data", let problem = DataURL.problem(url.string) {
            within("url") { report(problem, at: m["url"]?.value.offset ?? node.offset) }
        }
        // libcurl answers such a URL with the folder's listing, which would be saved as the file.
        if url.isFTPOrSFTP, url.string.hasSuffix("/") {
            within("url") { report("\(url.redacted) names a folder (it ends with /): a download fetches one file, not a listing", at: m["url"]?.value.offset ?? node.offset) }
        }
        return Download(url: url, to: to ?? "", sha256: sha, size: size, refresh: refresh, transfer: transfer)
    }

    func decodeUpload(_ node: JSONNode) -> Upload? {
        guard let m = members(of: node, allowed: Self.uploadKeys) else { return nil }
        let url = field(m, "url", required: true) { self.url($0) }
        let method = field(m, "method") { oneOf($0, UploadMethod.self) } ?? .put
        let contentType = field(m, "contentType") { headerText($0) }
        let createDirs = field(m, "createMissingDirs") { bool($0) } ?? false
        let inPlace = field(m, "inPlace") { bool($0) } ?? false
        if inPlace, let url, url.isHTTP {
            within("inPlace") { report("\"inPlace\" is for FTP, SFTP and file: uploads, which are stored under a temporary name and renamed; an HTTP server decides where a body goes", at: m["inPlace"]?.value.offset) }
        }
        let idempotent = field(m, "idempotent") { bool($0) } ?? false
        if idempotent, method != .post {
            within("idempotent") { report("\"idempotent\" is for a POST: a PUT replaces what it sent and is retried anyway", at: m["idempotent"]?.value.offset) }
        }
        let transfer = decodeOwnTransferSettings(m)
        let body: UploadBody?
        switch (m["from"], m["multipart"]) {
        case (.some, .some):
            report("an upload has either \"from\" (a raw body) or \"multipart\", not both", at: node.offset)
            body = nil
        case (.some, nil):
            body = field(m, "from") { nonEmptyString($0) }.map(UploadBody.file)
        case (nil, .some):
            body = field(m, "multipart") { decodeMultipart($0) }.map(UploadBody.multipart)
            if contentType != nil {
                within("contentType") { report("contentType applies to a raw body; give each multipart file its own contentType", at: m["contentType"]?.value.offset) }
            }
        case (nil, nil):
            report("an upload needs \"from\" (a file sent as the body) or \"multipart\"", at: node.offset)
            body = nil
        }
        if let url, body != nil, case .multipart = body!, !(url.scheme == "http" || url.scheme == "https") {
            within("url") { report("multipart uploads need an http or https URL", at: m["url"]?.value.offset) }
        }
        guard var url, let body else { return nil }
        // As `curl -T file URL/`: a store into a folder takes the source's file name. An
        // HTTP POST goes to the URL as written (an endpoint, not a place to put a file).
        if url.namesFolder, case .file(let path) = body, method == .put || !url.scheme.hasPrefix("http") {
            let name = PathText.lastComponent(path)
            if name != ".", name != "..", name != "/" { url = url.appending(fileName: name) }
        }
        // FTP, SFTP and file: uploads are stored as NAME.xferpart until whole: an upload to
        // `b.bin.xferpart` would be overwritten by the one to `b.bin`, then renamed away.
        if url.isFTPOrSFTP || url.scheme == "file", let name = url.lastPathSegment, PathText.isInProgress(name) {
            within("url") {
                report("\(url.redacted): names ending in \(PathText.partialSuffix) are those of files in progress (an upload's part is stored "
                       + "under one until it is whole); choose another name", at: m["url"]?.value.offset ?? node.offset)
            }
            return nil
        }
        return Upload(url: url, method: method, body: body, contentType: contentType,
                      createMissingDirectories: createDirs, inPlace: inPlace, idempotent: idempotent, transfer: transfer)
    }

    func decodeMultipart(_ node: JSONNode) -> MultipartForm? {
        guard let m = members(of: node, allowed: Self.multipartKeys) else { return nil }
        let fields = field(m, "fields") { node -> [MultipartForm.Field]? in
            guard case .object(let members) = node.value else {
                report("expected an object of field names to values, found \(node.value.typeName)", at: node.offset)
                return nil
            }
            return members.compactMap { member in
                within(member.key) {
                    stringNotingSecrets(member.value).map { MultipartForm.Field(name: member.key, value: $0.text, secret: !$0.secrets.isEmpty) }
                }
            }
        } ?? []
        let files = field(m, "files") { node -> [MultipartForm.File]? in
            guard case .array(let items) = node.value else {
                report("expected an array of files, found \(node.value.typeName)", at: node.offset)
                return nil
            }
            return items.enumerated().compactMap { i, item in within(index: i) { decodeMultipartFile(item) } }
        } ?? []
        if fields.isEmpty, files.isEmpty, !m.has("fields"), !m.has("files") {
            report("a multipart form needs \"fields\" or \"files\"", at: node.offset)
        }
        return MultipartForm(fields: fields, files: files)
    }

    /// Text sent inside a header line (a content type): non-empty, and no line break or
    /// other control character, which libcurl would send as it is: the rest of the value
    /// became a header of its own (`text/plain\r\nX-Injected: 1`).
    func headerText(_ node: JSONNode) -> String? {
        guard let s = nonEmptyString(node) else { return nil }
        guard HeaderText.canCarry(s) else {
            report("must not contain line breaks or other control characters: it is sent in a header", at: node.offset)
            return nil
        }
        return s
    }

    func decodeMultipartFile(_ node: JSONNode) -> MultipartForm.File? {
        guard let m = members(of: node, allowed: Self.multipartFileKeys) else { return nil }
        let name = field(m, "field", required: true) { nonEmptyString($0) }
        let path = field(m, "path", required: true) { nonEmptyString($0) }
        let filename = field(m, "filename") { nonEmptyString($0) }
        let type = field(m, "contentType") { headerText($0) }
        guard let name, let path else { return nil }
        return MultipartForm.File(field: name, path: path, filename: filename, contentType: type)
    }
}

/// The rule for job ids.
enum JobID {
    /// `[A-Za-z0-9._-]+`
    static func isValid(_ id: String) -> Bool {
        // Runs for every id and every `dependsOn` entry.
        !id.isEmpty && ASCII.allSatisfy(id) { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
        }
    }
}
