extension Plan {
    /// The plan as JSON, documented by `schemas/plan.schema.json`.
    ///
    /// Secrets cannot appear: the plan holds only environment-variable names, URLs are
    /// redacted, and literal values of secret-looking headers are replaced.
    public func json(pretty: Bool = false) -> [UInt8] {
        var all: [UInt8] = []
        writeJSON(pretty: pretty) { all += $0 }
        return all
    }

    /// Streams the JSON plan to `sink` in chunks of about 1 MiB (memory stays flat
    /// however many jobs there are).
    public func writeJSON(pretty: Bool = false, to sink: ([UInt8]) -> Void) {
        let chunk = 1 << 20
        var w = JSONWriter(pretty: pretty, capacity: chunk + 64 * 1024)
        var cache = TransferJSONCache()
        w.object { w in
            w.member("formatVersion", 1)
            w.member("manifest", manifestPath)
            w.member("name", name)
            w.member("directory", directory)
            w.member("outputDir", outputDirectory)
            w.key("limits")
            w.object { w in
                w.member("concurrency", limits.concurrency)
                w.member("perHost", limits.perHost)
                w.member("bandwidth", limits.bandwidth)
            }
            w.key("summary")
            w.object { w in
                w.member("jobs", jobs.count)
                w.member("downloads", count(.download))
                w.member("uploads", count(.upload))
                w.member("archives", count(.archive))
                w.member("extracts", count(.extract))
                w.member("waves", graph.waves.count)
                w.member("warnings", jobs.reduce(0) { $0 + $1.warnings.count } + (forecast?.warnings.count ?? 0))
            }
            Selection.write(selection, to: &w)
            w.key("waves")
            w.array { w in
                for wave in graph.waves { w.array { w in for j in wave { w.string(jobs[j].id) } } }
            }
            w.member("criticalPath", strings: graph.criticalPath.map { jobs[$0].id })
            if let f = forecast {
                w.key("diskSpace")
                w.object { w in
                    w.member("bytesNeeded", f.bytesNeeded)
                    w.member("enough", f.enoughSpace)
                }
            }
            w.key("jobs")
            w.array { w in
                // Static, with what it reads passed in: a closure of `writeJob` that read
                // `self` copied the whole plan for each job.
                let forecast = self.forecast
                for j in jobs.indices {
                    Self.writeJob(jobs[j], wave: graph.wave[j], forecast: forecast, to: &w, cache: &cache)
                    if w.byteCount >= chunk { w.drain(into: sink) }
                }
            }
        }
        w.drain(into: sink)
        sink([0x0A])
    }

    private static func writeJob(_ job: PlannedJob, wave: Int, forecast: RunForecast?, to w: inout JSONWriter,
                                 cache: inout TransferJSONCache) {
        // Read here, not in the closures below: a closure capturing `forecast` copied it
        // (its arrays and dictionaries) for each job.
        let action = forecast?.actions[job.index]
        let probe = forecast?.probes[job.index]
        let estimate = forecast?.inputs[job.index] ?? nil
        let forecastWarning = forecast?.warnings[job.index]
        w.object { w in
            w.member("id", job.id)
            w.member("kind", job.kind.rawValue)
            w.member("wave", wave)
            w.member("dependsOn", strings: job.dependsOn)
            w.member("optional", job.optional)
            w.member("priority", job.priority)
            w.member("source", job.source)
            w.member("destination", job.destination)
            switch job.action {
            case .download(let d):
                w.key("download")
                w.object { w in
                    w.member("url", d.url.redacted)
                    w.member("to", d.to)
                    w.member("nameFromResponse", d.namesFileAtRunTime)
                    w.member("size", d.size)
                    w.member("sha256", d.sha256)
                    w.member("refresh", d.refresh.rawValue)
                }
            case .upload(let u):
                w.key("upload")
                w.object { w in
                    w.member("url", u.url.redacted)
                    w.member("method", u.method.rawValue)
                    switch u.body {
                    case .file(let path):
                        w.member("from", path)
                        w.member("contentType", u.contentType)
                    case .multipart(let form):
                        w.key("multipart")
                        w.object { w in
                            w.key("fields")
                            w.object { w in for f in form.fields { w.member(named: f.name, f.shown) } }
                            w.key("files")
                            w.array { w in
                                for f in form.files {
                                    w.object { w in
                                        w.member("field", f.field)
                                        w.member("path", f.path)
                                        w.member("filename", f.filename ?? PathText.lastComponent(f.path))
                                        w.member("contentType", f.contentType)
                                    }
                                }
                            }
                        }
                    }
                    w.member("createMissingDirs", u.createMissingDirectories)
                    w.member("inPlace", u.inPlace)
                    w.member("storedAs", u.storedName)
                    w.member("idempotent", u.idempotent)
                }
            case .archive(let a):
                w.key("archive")
                w.object { w in
                    w.key("inputs")
                    w.array { w in
                        for input in job.inputs {
                            w.object { w in
                                switch input {
                                case .job(let id, let path):
                                    w.member("job", id)
                                    w.member("path", path)
                                case .path(let path):
                                    w.member("path", path)
                                }
                            }
                        }
                    }
                    w.member("to", a.to)
                    w.member("format", a.format.rawValue)
                    w.member("level", a.level.map(Int64.init))
                    w.member("prefix", a.prefix)
                    w.member("reproducible", a.reproducible)
                    w.member("removeSources", a.removeSources)
                }
            case .extract(let e):
                w.key("extract")
                w.object { w in
                    if case .job(let id, let path)? = job.inputs.first {
                        w.member("from", id)
                        w.member("archive", path)
                    }
                    w.member("to", e.to)
                    w.member("format", e.format?.rawValue ?? "auto")
                    w.member("stripComponents", e.stripComponents)
                    w.member("maxBytes", e.maxBytes)
                    w.member("maxEntries", e.maxEntries)
                }
            }
            if let t = job.transferStorage {
                w.key("transfer")
                w.raw(cache.bytes(for: t, upload: job.kind == .upload, pretty: w.isPretty, depth: w.depth))
            }
            if let action {
                w.key("run")
                w.object { w in
                    w.member("action", RunForecast.name(action))
                    if case .resume(let offset, let total) = action {
                        w.member("offset", offset)
                        if let total { w.member("size", total) }
                    }
                    if case .upToDate(let path) = action { w.member("path", path) }
                    if case .verify(let path) = action { w.member("path", path) }
                    if case .outputChanged(let path) = action { w.member("path", path) }
                    if case .adopt(let path) = action { w.member("path", path) }
                    if case .fails(let reason) = action { w.member("reason", reason) }
                    if case .packed(let archive) = action { w.member("archive", archive) }
                    if case .intoOccupiedFolder(let path, let entries) = action {
                        w.member("path", path)
                        w.member("entries", entries)
                    }
                    switch probe {
                    case .size(let size): w.member("probedSize", size)
                    case .sizeUnknown(let why): w.member("probeSizeUnknown", why)
                    case .failed(let failure, let retried):
                        w.member("probeFailure", failure)
                        w.member("probeFailureRetried", retried)
                    case nil: break
                    }
                    if let estimate {
                        w.member("inputBytes", estimate.bytes)
                        w.member("inputsOfUnknownSize", estimate.unknown)
                    }
                }
            }
            w.member("warnings", strings: job.warnings + (forecastWarning.map { [$0] } ?? []))
        }
    }
}

/// Most jobs share their effective settings (they come from `defaults`); rendering them
/// once and reusing the bytes keeps planning 100,000 jobs fast.
private struct TransferJSONCache {
    private var last: (settings: SharedBox<EffectiveTransfer>, upload: Bool, depth: Int, bytes: [UInt8])?

    /// Jobs with equal settings mostly share one box (`PlannedJob.transferStorage`): the
    /// same box is known equal without comparing (or copying) the settings.
    mutating func bytes(for settings: SharedBox<EffectiveTransfer>, upload: Bool, pretty: Bool, depth: Int) -> [UInt8] {
        if let last, last.depth == depth, last.upload == upload,
           last.settings === settings || last.settings.value == settings.value {
            return last.bytes
        }
        var w = JSONWriter(pretty: pretty, capacity: 512, depth: depth)
        settings.value.writeJSON(to: &w, upload: upload)
        let bytes = w.bytes
        last = (settings, upload, depth, bytes)
        return bytes
    }
}

extension EffectiveTransfer {
    /// `upload`: the answer timeout is shown, which only an upload has.
    func writeJSON(to w: inout JSONWriter, upload: Bool) {
        w.object { w in
            w.key("headers")
            w.object { w in
                for h in headers {
                    w.key(h.name)
                    switch h.value {
                    case .literal(let v): w.string(Header.isSecretLooking(h.name) ? "REDACTED" : v)
                    case .literalSecret: w.string("REDACTED")
                    case .environment(let name): w.object { w in w.member("valueEnv", name) }
                    }
                }
            }
            w.key("auth")
            switch auth {
            case nil: w.null()
            case .netrc: w.object { w in w.member("netrc", true) }
            case .bearer(let token): w.object { w in w.key("bearer"); w.object { w in w.member("tokenEnv", token) } }
            case .basic(let user, let password):
                w.object { w in
                    w.key("basic")
                    w.object { w in
                        w.member("userEnv", user)
                        w.member("passwordEnv", password)
                    }
                }
            }
            w.key("retry")
            w.object { w in
                w.member("attempts", retry.attempts)
                w.member("initialDelay", DurationText.format(retry.initialDelay))
                w.member("maxDelay", DurationText.format(retry.maxDelay))
                w.member("maxRetryAfter", DurationText.format(retry.maxRetryAfter))
            }
            w.key("timeouts")
            w.object { w in
                w.member("connect", DurationText.format(connectTimeout))
                w.member("total", totalTimeout.map(DurationText.format))
                w.member("stall", DurationText.format(stallTimeout))
                if upload { w.member("answer", DurationText.format(answerTimeout)) }
            }
            w.key("tls")
            w.object { w in
                w.member("caFile", caFile)
                w.member("insecure", insecure)
                w.member("allowHttpRedirects", allowHttpRedirects)
                w.member("explicitFTPS", explicitFTPS)
                // Only when given: written for every job, three nulls made a 100,000-job
                // plan 6 % longer (bench/plan-scale).
                if let clientCert {
                    w.member("clientCert", clientCert)
                    w.member("clientKey", clientKey)
                    w.member("keyPassphraseEnv", keyPassphraseEnv)
                }
            }
            w.member("proxy", proxy)
            w.key("sftp")
            w.object { w in
                w.member("knownHosts", knownHosts)
                w.member("privateKey", privateKey)
                w.member("passphraseEnv", passphraseEnv)
            }
        }
    }
}

extension PlannedJob {
    /// Where the job reads from, for display: a redacted URL, or local paths (absolute).
    public var source: String { sources.joined(separator: ", ") }

    /// `source` for people: each local path relative to `base` when it lies inside it, as
    /// destinations are shown (the others stay absolute), and a long list folded
    /// (`FoldedList`: an archive of 2,000 downloads).
    public func source(relativeTo base: String) -> String {
        // A download reads from one URL, never a local path: no list to build and fold (a
        // run asks this at each job's start).
        if kind == .download { return downloadSource }
        return FoldedList.text(sources.map { $0.hasPrefix("/") ? PathText.display($0, relativeTo: base) : $0 })
    }

    /// A download's URL, redacted (not through `let d`: that copied the download).
    private var downloadSource: String { url?.redacted ?? "" }

    private var sources: [String] {
        switch action {
        case .download: [downloadSource]
        case .upload(let u): u.sourcePaths
        case .archive, .extract: inputs.map { input in
            switch input {
            case .job(let id, _): id
            case .path(let p): p
            }
        }
        }
    }

    /// Where the job writes to: a path, a folder ending in `/`, or a redacted URL.
    public var destination: String {
        switch action {
        case .download(let d): d.to
        case .upload(let u): u.url.redacted
        case .archive(let a): a.to
        case .extract(let e): e.to
        }
    }
}

extension Header {
    /// True for names whose literal values are likely secrets (shown as REDACTED).
    public static func isSecretLooking(_ name: String) -> Bool {
        let u = name.utf8
        return ASCII.containsIgnoringCase(u, "auth") || ASCII.containsIgnoringCase(u, "token")
            || ASCII.containsIgnoringCase(u, "secret") || ASCII.containsIgnoringCase(u, "key")
            || ASCII.containsIgnoringCase(u, "password") || ASCII.containsIgnoringCase(u, "cookie")
            || ASCII.containsIgnoringCase(u, "session") || ASCII.containsIgnoringCase(u, "signature")
    }
}
