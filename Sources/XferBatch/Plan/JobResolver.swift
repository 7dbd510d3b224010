import XferCurl

/// Resolves one job for the plan: absolute paths, effective settings, confinement and warnings.
struct JobResolver {
    /// What every job of one manifest is resolved against; shared by reference so that
    /// resolving a job copies none of it.
    final class Context: Sendable {
        let directory: String
        let outputDirectory: String
        let defaults: TransferSettings
        let environment: [String: String]
        let home: String
        let indexByID: [String: Int]
        let idHints: JobIDHints
        /// The effective settings of every job without settings of its own, and their warnings.
        let defaultTransfer: SharedBox<EffectiveTransfer>
        let defaultTransferWarnings: [String]
        /// The same plus the no-checksum warning: most downloads share this very array.
        let defaultWarningsWithoutChecksum: [String]

        init(directory: String, outputDirectory: String, defaults: TransferSettings,
             environment: [String: String], indexByID: [String: Int]) {
            self.directory = directory
            self.outputDirectory = outputDirectory
            self.defaults = defaults
            self.environment = environment
            let home = PathText.home(in: environment)
            self.home = home
            self.indexByID = indexByID
            self.idHints = JobIDHints(indexByID: indexByID)
            let t = EffectiveTransfer(defaults, directory: directory, home: home)
            self.defaultTransfer = SharedBox(t)
            self.defaultTransferWarnings = JobResolver.warnings(for: t, environment: environment)
            self.defaultWarningsWithoutChecksum = defaultTransferWarnings + [JobResolver.noChecksum]
        }
    }

    let job: Job
    let context: Context
    private var directory: String { context.directory }
    private var outputDirectory: String { context.outputDirectory }
    private var defaults: TransferSettings { context.defaults }
    private var environment: [String: String] { context.environment }
    private var home: String { context.home }
    private var indexByID: [String: Int] { context.indexByID }

    /// The previous job's effective settings, reused when equal (most jobs share them).
    var sharedTransfer: SharedBox<EffectiveTransfer>?
    private(set) var problems: [Diagnostic] = []
    private(set) var implicitDependencies: [String] = []
    private var warnings: [String] = []

    init(job: Job, context: Context) {
        self.job = job
        self.context = context
    }

    static let noChecksum = "no sha256: the downloaded content is not verified"

    mutating func resolve() -> PlannedJob {
        var action = job.action
        var transfer: SharedBox<EffectiveTransfer>? = nil
        var inputs: [JobInput] = []
        switch job.action {
        case .download(var d):
            d.to = destination(d.to, key: "to")
            let t = effective(d.hasOwnTransferSettings ? d.transfer : nil)
            transfer = t
            if d.sha256 == nil {
                // Share one array for the most common case instead of building one per job.
                if !d.hasOwnTransferSettings, warnings == context.defaultTransferWarnings {
                    warnings = context.defaultWarningsWithoutChecksum
                } else {
                    warnings.append(Self.noChecksum)
                }
            }
            if d.namesFileAtRunTime {
                // The URL's name only if no redirect leads elsewhere (see `FileNaming`).
                let fallback = d.url.lastPathSegment.flatMap(FileNaming.sanitize).map { "the final URL's last segment (\"\($0)\" unless redirected)" } ?? "the job id"
                warnings.append("file name decided at run time: Content-Disposition, else \(fallback)")
            }
            checkCredentials(t.value, url: d.url, own: d.hasOwnTransferSettings ? d.transfer : nil)
            action = .download(d)
        case .upload(var u):
            switch u.body {
            case .file(let p):
                u.body = .file(PathText.resolve(p, against: directory, home: home))
            case .multipart(var form):
                for i in form.files.indices { form.files[i].path = PathText.resolve(form.files[i].path, against: directory, home: home) }
                u.body = .multipart(form)
            }
            let t = effective(u.hasOwnTransferSettings ? u.transfer : nil)
            transfer = t
            checkCredentials(t.value, url: u.url, own: u.hasOwnTransferSettings ? u.transfer : nil)
            action = .upload(u)
        case .archive(var a):
            a.to = destination(a.to, key: "to")
            for (k, input) in a.from.enumerated() {
                if indexByID[input] != nil {
                    if input == job.id {
                        problems.append(Diagnostic(JobPath.action(job, "from").appending(index: k), "an archive cannot contain itself"))
                    }
                    inputs.append(.job(id: input, path: ""))
                    implicitDependencies.append(input)
                } else {
                    let resolved = PathText.resolve(input, against: outputDirectory, home: home)
                    if !job.allowOutsideOutputDir, !PathText.isWithin(resolved, folder: outputDirectory) {
                        problems.append(Diagnostic(JobPath.action(job, "from").appending(index: k),
                                                   "\"\(input)\" is neither a job id nor a path under outputDir (\(outputDirectory))\(context.idHints.phrase(for: input))"))
                    }
                    inputs.append(.path(resolved))
                }
            }
            action = .archive(a)
        case .extract(var e):
            e.to = destination(e.to.hasSuffix("/") ? e.to : e.to + "/", key: "to")
            if e.to == outputDirectory + "/" || e.to == "/" {
                problems.append(Diagnostic(JobPath.action(job, "to"),
                                           "an extraction replaces its folder as a whole; name a folder under outputDir, not outputDir itself"))
            }
            if indexByID[e.from] == nil {
                problems.append(Diagnostic(JobPath.action(job, "from"),
                                           "no job \"\(e.from)\" in this manifest\(context.idHints.phrase(for: e.from))"))
            } else if e.from == job.id {
                problems.append(Diagnostic(JobPath.action(job, "from"), "an extract job cannot read its own output"))
            } else {
                inputs.append(.job(id: e.from, path: ""))
                implicitDependencies.append(e.from)
            }
            action = .extract(e)
        }
        if let transfer { sharedTransfer = transfer }
        return PlannedJob(id: job.id, index: job.index, dependsOn: job.dependsOn, optional: job.optional,
                          priority: job.priority, action: action, transfer: transfer, inputs: inputs, warnings: warnings)
    }

    /// Absolute destination under `outputDir`; a trailing `/` (folder) is kept.
    private mutating func destination(_ to: String, key: String) -> String {
        let isFolder = to.isEmpty || to.hasSuffix("/")
        let resolved = PathText.resolve(to.isEmpty ? "." : to, against: outputDirectory, home: home)
        if !job.allowOutsideOutputDir, !PathText.isWithin(resolved, folder: outputDirectory) {
            problems.append(Diagnostic(JobPath.action(job, key),
                                       "\"\(to)\" resolves to \(resolved), outside outputDir (\(outputDirectory)); set \"allowOutsideOutputDir\": true on the job to allow it"))
        } else if !isFolder, resolved == outputDirectory {
            problems.append(Diagnostic(JobPath.action(job, key), "\"\(to)\" names the output folder itself, not a file"))
        }
        if isFolder { return resolved == "/" ? "/" : resolved + "/" }
        return resolved
    }

    /// The effective settings for a job's own settings (nil: it has none, and shares the
    /// defaults' box); consecutive jobs with equal settings share one box too.
    private mutating func effective(_ own: TransferSettings?) -> SharedBox<EffectiveTransfer> {
        guard let own else {
            if warnings.isEmpty { warnings = context.defaultTransferWarnings } else { warnings += context.defaultTransferWarnings }
            return context.defaultTransfer
        }
        let t = EffectiveTransfer(defaults.overridden(by: own), directory: directory, home: home)
        warnings += Self.warnings(for: t, environment: environment)
        if t.retry.initialDelay > t.retry.maxDelay {
            problems.append(Diagnostic(JobPath.action(job, "retry"),
                                       "effective maxDelay (\(DurationText.format(t.retry.maxDelay))) is shorter than initialDelay (\(DurationText.format(t.retry.initialDelay)))"))
        }
        if let shared = sharedTransfer, shared.value == t { return shared }
        return SharedBox(t)
    }

    static func warnings(for t: EffectiveTransfer, environment: [String: String]) -> [String] {
        var warnings: [String] = []
        if t.insecure { warnings.append("TLS certificate verification is OFF (tls.insecure): anyone on the path can alter the data") }
        if t.allowHttpRedirects { warnings.append("redirects from https to plain http are followed (tls.allowHttpRedirects): the rest of the transfer is unprotected") }
        if t.clientCert == nil, t.clientKey != nil || t.keyPassphraseEnv != nil {
            warnings.append("tls.clientKey and tls.keyPassphraseEnv are not used without tls.clientCert: no client certificate is presented")
        }
        for name in t.secretVariables {
            if environment[name] == nil {
                warnings.append("environment variable \(name) is not set here; the run will need it")
            } else if environment[name]?.isEmpty == true, !t.mayBeEmpty(name) {
                warnings.append("environment variable \(name) is empty here; the run will need a value")
            } else if let value = environment[name], !HeaderText.canCarry(value), t.isSentInAHeader(name) {
                warnings.append(Self.cannotCarry(name, "a header"))
            }
        }
        return warnings
    }

    /// The warning for a variable whose value `carrier` (a header, an FTP login: a line of
    /// text) cannot hold, which the run will refuse (`SecretResolver.lineValue`).
    static func cannotCarry(_ name: String, _ carrier: String) -> String {
        "environment variable \(name) holds a line break or another control character here, which \(carrier) cannot carry"
    }

    /// What the job's credentials and headers become over its URL's scheme. A bearer token
    /// and headers are HTTP's: over FTP or SFTP libcurl drops them, and an `auth.bearer`
    /// meant for an FTP server logged in as `anonymous` (while `plan` warned that the
    /// credentials went unencrypted). The job's own bearer there is an error; one from
    /// `defaults`, which may serve its HTTP jobs, a warning.
    private mutating func checkCredentials(_ t: EffectiveTransfer, url: TransferURL, own: TransferSettings?) {
        // What is sent decides first, the scheme after: most jobs send neither credentials
        // nor headers of their own, and then no scheme is compared (this runs per job).
        if case .bearer = t.auth, url.isFTPOrSFTP {
            let why = "a bearer token is sent over http and https only: this \(url.scheme) transfer would log in without it"
            if case .bearer = own?.auth {
                problems.append(Diagnostic(JobPath.action(job, "auth"), why + " (give auth.basic, or sftp keys)"))
            } else {
                warnings.append(why + " (auth.bearer from defaults)")
            }
        }
        if let own, !own.headers.isEmpty, url.isFTPOrSFTP {
            warnings.append("headers are sent over http and https only, not over \(url.scheme)")
        }
        if case .basic(let user, let password) = t.auth, url.isFTP {
            for name in [user, password] where environment[name].map({ !HeaderText.canCarry($0) }) ?? false {
                warnings.append(Self.cannotCarry(name, "an FTP login"))
            }
        }
        let sendsAuth = switch t.auth {
        case .bearer: url.isHTTP
        case .basic, .netrc: true
        case nil: false
        }
        let secretHeader = !sendsAuth && t.headers.contains { if case .environment = $0.value { true } else { false } } && url.isHTTP
        guard sendsAuth || secretHeader, url.scheme == "http" || (url.scheme == "ftp" && !t.explicitFTPS) else { return }
        warnings.append("credentials are sent unencrypted over \(url.scheme)")
    }
}
