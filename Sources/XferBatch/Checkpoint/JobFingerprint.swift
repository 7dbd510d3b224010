import Crypto

/// A SHA-256 of what defines a job's result: its action (URL, destination, checksum,
/// upload body, archive inputs and options) and the effective settings that change what is
/// fetched or sent (headers, auth *names*). Timeouts and retries are left out: changing them
/// must not throw away progress. An edited job gets a new fingerprint and starts fresh.
public enum JobFingerprint {
    public static func of(_ job: PlannedJob) -> String {
        var parts = Parts()
        parts.add(job.kind.rawValue)
        switch job.action {
        case .download(let d):
            // A token a URL takes from the environment is left out, as a header's is: a
            // rotated one re-downloaded every file of a nightly sync.
            parts.add(d.url.withoutSecretTexts)
            parts.add(d.to)
            parts.add(d.sha256 ?? "")
            parts.add(d.size.map(String.init) ?? "")
        case .upload(let u):
            parts += [u.url.withoutSecretTexts, u.method.rawValue, u.contentType ?? ""]
            switch u.body {
            case .file(let path): parts += ["file:" + path]
            case .multipart(let form):
                parts += form.fields.map { "field:\($0.name)=\($0.secret ? "(secret)" : $0.value)" }
                parts += form.files.map { "part:\($0.field)=\($0.path);\($0.filename ?? "");\($0.contentType ?? "")" }
            }
        case .archive(let a):
            parts += job.inputs.map { input in
                switch input {
                case .job(let id, let path): "job:\(id)=\(path)"
                case .path(let p): "path:\(p)"
                }
            }
            parts += [a.to, a.format.rawValue, a.level.map(String.init) ?? "", a.prefix, "\(a.reproducible)"]
        case .extract(let e):
            parts += job.inputs.map { input in
                guard case .job(let id, let path) = input else { return "" }
                return "job:\(id)=\(path)"
            }
            parts += [e.to, e.format?.rawValue ?? "auto", "\(e.stripComponents)", "\(e.maxBytes)", "\(e.maxEntries)"]
        }
        if let t = job.transfer {
            parts += t.headers.map { h in
                switch h.value {
                case .literal(let v): "header:\(h.name)=\(v)"
                // As for `environment`: a rotated token is not an edited job.
                case .literalSecret: "header:\(h.name)=(secret)"
                case .environment(let name): "header:\(h.name)=$\(name)"
                }
            }
            parts.add(authPart(t.auth))
        }
        return parts.digest
    }

    /// The parts joined by U+001F, hashed once at the end: gathered in one buffer rather
    /// than fed to the hash part by part (this runs for every job of a run, and each
    /// `update` of a few bytes cost more than the bytes themselves).
    struct Parts {
        var bytes: [UInt8] = []
        var count = 0

        init() { bytes.reserveCapacity(256) }

        mutating func add(_ part: String) {
            if count > 0 { bytes.append(0x1F) }
            bytes.append(contentsOf: part.utf8)
            count += 1
        }

        static func += (parts: inout Parts, more: [String]) {
            for part in more { parts.add(part) }
        }

        var digest: String { FileDigest.hex(SHA256.hash(data: bytes)) }
    }

    /// The auth part, spelled as `String(describing:)` spelled it in earlier versions (so
    /// stored fingerprints stay valid) without its reflection, which was slow per job.
    static func authPart(_ auth: Auth?) -> String {
        switch auth {
        case nil: "auth:nil"
        case .basic(let user, let password): "auth:Optional(XferBatch.Auth.basic(userEnv: \"\(user)\", passwordEnv: \"\(password)\"))"
        case .bearer(let token): "auth:Optional(XferBatch.Auth.bearer(tokenEnv: \"\(token)\"))"
        case .netrc: "auth:Optional(XferBatch.Auth.netrc)"
        }
    }
}
