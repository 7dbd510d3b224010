import Foundation

extension Plan {
    /// The plan for people: a header with counts, limits and the critical path, then the
    /// jobs wave by wave with their source, destination, effective settings and warnings.
    /// Paths are shown relative to the manifest's folder when inside it.
    public func text() -> String {
        var out = ""
        let title = name.map { "\"\($0)\"" } ?? "manifest"
        out += "Plan for \(title) (\(manifestPath))\n"
        let kinds = JobKind.allCases.filter { count($0) > 0 }.map { Self.counted(count($0), $0.rawValue) }.joined(separator: ", ")
        out += "  \(Self.counted(jobs.count, "job")): \(kinds), in \(Self.counted(graph.waves.count, "wave"))\n"
        if let selection {
            let more = jobs.count - selection.named.count
            out += "  selected: \(FoldedList.text(selection.named))" + (more > 0 ? " and the \(Self.counted(more, "job")) needed first" : "")
                + ", of \(selection.manifestJobs) in the manifest\n"
        }
        out += "  critical path: \(Self.chain(graph.criticalPath.map { jobs[$0].id })) (\(Self.counted(graph.criticalPath.count, "job")))\n"
        out += "  output folder: \(show(outputDirectory))\n"
        let bandwidth = limits.bandwidth.map { ByteSize.format($0) + "/s" } ?? "unlimited"
        out += "  limits: \(limits.concurrency) transfers at once, \(limits.perHost) per host, bandwidth \(bandwidth)\n"
        if let f = forecast, f.bytesNeeded > 0 {
            out += "  disk: \(ByteSize.format(f.bytesNeeded)) of known sizes to download; \(f.enoughSpace ? "enough free space" : "NOT ENOUGH FREE SPACE in the output folder")\n"
        }
        for (w, wave) in graph.waves.enumerated() {
            out += "\nWave \(w + 1)\n"
            for j in wave { out += describe(jobs[j]) }
        }
        let warnings = jobs.reduce(0) { $0 + $1.warnings.count } + (forecast?.probes.values.count { $0.warning != nil } ?? 0)
            + (forecast?.warnings.count ?? 0)
        // Said again at the end, where a reader of a long plan looks first.
        let failing = forecast?.actions.count { if case .fails = $0 { true } else { false } } ?? 0
        let fails = failing == 0 ? "" : "; \(Self.counted(failing, "job")) would fail (see \"fails:\")"
        out += "\n\(Self.counted(warnings, "warning"))\(fails). Nothing was transferred: this is a dry run.\n"
        return out
    }

    private func describe(_ job: PlannedJob) -> String {
        var lines: [String] = []
        var head = "  \(job.id) (\(job.kind.rawValue)"
        if job.optional { head += ", optional" }
        if job.priority != 0 { head += ", priority \(job.priority)" }
        head += ")"
        if !job.dependsOn.isEmpty { head += " after \(FoldedList.text(job.dependsOn))" }
        lines.append(head)
        switch job.action {
        case .download(let d):
            lines.append("\(d.url.redacted) -> \(show(d.to))")
            var facts: [String] = []
            if let size = d.size { facts.append("size \(ByteSize.format(size))") }
            if let sha = d.sha256 { facts.append("sha256 \(sha.prefix(12))…") }
            if d.refresh != .never { facts.append("refresh \(d.refresh.rawValue)") }
            if !facts.isEmpty { lines.append(facts.joined(separator: ", ")) }
        case .upload(let u):
            switch u.body {
            case .file(let path):
                // FTP, SFTP and file uploads store the file; only HTTP has a method.
                let verb = u.url.scheme.hasPrefix("http") ? u.method.rawValue : "store"
                lines.append("\(verb) \(show(path)) -> \(u.url.redacted)")
                if let stored = u.storedName {
                    lines.append("stored as \(stored), renamed once whole")
                } else if u.inPlace {
                    lines.append("stored in place: the final name holds part of the file until the last byte is sent")
                }
            case .multipart(let form):
                lines.append("\(u.method.rawValue) multipart/form-data -> \(u.url.redacted)")
                if !form.fields.isEmpty { lines.append("fields: \(form.fields.map(\.name).joined(separator: ", "))") }
                for f in form.files {
                    lines.append("file \(f.field): \(show(f.path)) as \(f.filename ?? PathText.lastComponent(f.path))\(f.contentType.map { " (\($0))" } ?? "")")
                }
            }
        case .archive(let a):
            lines.append("\(job.source(relativeTo: directory)) -> \(show(a.to)) (\(a.format.rawValue)\(a.level.map { ", level \($0)" } ?? "")\(a.reproducible ? ", reproducible" : ""))")
        case .extract(let e):
            let archive = job.inputs.first.map { input in
                guard case .job(let id, let path) = input else { return "" }
                return path.hasSuffix("/") ? id : "\(id) (\(show(path)))"
            } ?? e.from
            lines.append("\(archive) -> \(show(e.to)) (\(e.format?.rawValue ?? "format from content")\(e.stripComponents > 0 ? ", strip \(e.stripComponents)" : ""))")
            lines.append("limits: \(ByteSize.format(e.maxBytes)), \(e.maxEntries) entries; unsafe entries are refused")
        }
        if let t = job.transfer {
            var settings = Self.describe(t, upload: job.kind == .upload)
            if case .upload(let u) = job.action, u.isSentOnce {
                settings[0] += "; a POST is not sent again once it may have reached the server (unless \"idempotent\": true)"
            }
            lines.append(contentsOf: settings)
        }
        if let action = forecast?.actions[job.index] {
            var run = "run: " + relativePaths(in: RunForecast.describe(action, kind: job.kind))
            // What a build would read, unless there is nothing to build.
            if let estimate = forecast?.inputs[job.index], !action.keepsOutput { run += "; " + RunForecast.describe(estimate) }
            switch forecast?.probes[job.index] {
            case .size(let size): run += "; \(ByteSize.format(size)) (the server's answer)"
            case .sizeUnknown(let why): run += "; size unknown (\(why))"
            case .failed, nil: break
            }
            lines.append(run)
        }
        var text = lines[0] + "\n"
        for line in lines.dropFirst() { text += "      \(line)\n" }
        for warning in job.warnings { text += "      ! \(warning)\n" }
        if let warning = forecast?.probes[job.index]?.warning { text += "      ! \(warning)\n" }
        if let warning = forecast?.warnings[job.index] { text += "      ! \(warning)\n" }
        return text
    }

    /// `upload`: the answer timeout is shown, which only an upload has.
    private static func describe(_ t: EffectiveTransfer, upload: Bool) -> [String] {
        let r = t.retry
        var lines = ["retry: \(counted(r.attempts, "attempt")), backoff \(DurationText.format(r.initialDelay))..\(DurationText.format(r.maxDelay)), Retry-After up to \(DurationText.format(r.maxRetryAfter))"]
        lines.append("timeouts: connect \(DurationText.format(t.connectTimeout)), total \(t.totalTimeout.map(DurationText.format) ?? "none"), stall \(DurationText.format(t.stallTimeout))"
                     + (upload ? ", answer \(DurationText.format(t.answerTimeout))" : ""))
        var extra: [String] = []
        switch t.auth {
        case .basic(let user, let password): extra.append("auth basic ($\(user), $\(password))")
        case .bearer(let token): extra.append("auth bearer ($\(token))")
        case .netrc: extra.append("auth .netrc")
        case nil: break
        }
        if !t.headers.isEmpty { extra.append("headers \(t.headers.map(\.name).joined(separator: ", "))") }
        if let proxy = t.proxy { extra.append("proxy \(proxy)") }
        if let ca = t.caFile { extra.append("CA \(ca)") }
        if let certificate = t.clientCert {
            extra.append("client certificate \(certificate)" + (t.clientKey.map { ", key \($0)" } ?? "")
                         + (t.keyPassphraseEnv.map { " ($\($0))" } ?? ""))
        }
        if t.explicitFTPS { extra.append("explicit FTPS") }
        if !extra.isEmpty { lines.append(extra.joined(separator: "; ")) }
        return lines
    }

    /// `text` with the paths in the manifest's folder shown relative to it, but not a path
    /// inside a URL (`file:///…`, whose folder would be cut out of it: an up-to-date upload's
    /// destination, a failure quoting a `file:` URL).
    private func relativePaths(in text: String) -> String {
        let prefix = directory + "/"
        var out = ""
        var rest = Substring(text)
        while let found = rest.range(of: prefix) {
            out += rest[..<found.lowerBound]
            let inURL = (out.last == "/")
            out += inURL ? rest[found] : ""
            rest = rest[found.upperBound...]
        }
        return out + rest
    }

    private func show(_ path: String) -> String {
        PathText.display(path, relativeTo: directory)
    }

    /// Ids joined by arrows; a chain longer than `longestChainShown` shows its first and
    /// last few around an ellipsis (a manifest of 100,000 jobs in a chain made this one
    /// line a megabyte long). `--format json` lists the whole path.
    static func chain(_ ids: [String]) -> String {
        guard ids.count > longestChainShown else { return ids.joined(separator: " -> ") }
        return (ids.prefix(5) + ["…"] + ids.suffix(3)).joined(separator: " -> ")
    }

    static let longestChainShown = 12

    static func counted(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
