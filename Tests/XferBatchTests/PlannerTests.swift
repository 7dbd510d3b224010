import Foundation
import Testing
@testable import XferBatch

@Suite("Planner")
struct PlannerTests {
    typealias M = ManifestTesting

    /// A CA bundle, client certificate or SSH file a transfer's settings name that cannot be read fails the
    /// transfer before it sends anything: `plan` says so, unless a job of the plan writes it.
    @Test func aFileTheTransferSettingsNameThatCannotBeReadIsShownFailing() throws {
        // In a folder of the test's own, which any user running the tests may write in.
        let t = try ExecutorTesting()
        defer { t.cleanUp() }
        let missing = "/nonexistent/xferbatch/ca.pem"
        let jobs = [
            #"{"id": "tls", "download": {"url": "https://x.org/a", "to": "a", "tls": {"caFile": "\#(missing)"}}}"#,
            #"{"id": "key", "upload": {"from": "/etc/hostname", "url": "sftp://x.org/u", "sftp": {"knownHosts": "/etc/hostname", "privateKey": "\#(missing)"}}}"#,
            #"{"id": "plain", "download": {"url": "http://x.org/a", "to": "b", "tls": {"caFile": "\#(missing)"}}}"#,
            #"{"id": "me", "download": {"url": "https://x.org/c", "to": "c", "tls": {"clientCert": "/etc/hostname", "clientKey": "\#(missing)"}}}"#,
        ]
        let forecast = RunForecast(plan: try t.plan(jobs: jobs.joined(separator: ",")), store: InMemoryCheckpointStore())
        let reason = String(cString: strerror(ENOENT))
        #expect(forecast.actions[0] == .fails(reason: "cannot read \(missing) (tls.caFile): \(reason)"))
        #expect(forecast.actions[1] == .fails(reason: "cannot read \(missing) (sftp.privateKey): \(reason)"))
        #expect(forecast.actions[2] == .transfer, "plain http reads no CA file")
        #expect(forecast.actions[3] == .fails(reason: "cannot read \(missing) (tls.clientKey): \(reason)"))
        let fetched = M.download("ca", "https://x.org/ca.pem", to: "ca.pem")
            + #", {"id": "tls", "dependsOn": ["ca"], "download": {"url": "https://x.org/a", "to": "a", "tls": {"caFile": "\#(t.folder.path)/ca.pem"}}}"#
        let later = RunForecast(plan: try t.plan(jobs: fetched), store: InMemoryCheckpointStore())
        #expect(later.actions[1] == .transfer, "a job of the plan writes it first")
    }

    @Test func aFinishedDownloadNeedsNoCAFile() throws {
        let t = try ExecutorTesting()
        defer { t.cleanUp() }
        let plan = try t.plan(jobs: #"{"id": "a", "download": {"url": "https://x.org/a", "to": "a.bin", "tls": {"caFile": "/nonexistent/ca.pem"}}}"#)
        let path = t.folder.path + "/a.bin"
        _ = FileManager.default.createFile(atPath: path, contents: Data([1]))
        let store = InMemoryCheckpointStore()
        try store.save(JobCheckpoint(jobID: "a", fingerprint: JobFingerprint.of(plan.jobs[0]), phase: .done, bytes: 1, finalPath: path,
                                     finalModified: FileStamp.of(path)?.modified))
        #expect(RunForecast(plan: plan, store: store).actions == [.upToDate(path: path)])
    }

    @Test func unknownDependenciesAreNamedWithASuggestion() {
        let lines = M.problems(M.manifest(jobs: M.download("kernel", to: "k") + "," + M.download("b", to: "b", extra: #", "dependsOn": ["kernal"]"#)))
        #expect(lines.contains { $0.contains("jobs[1].dependsOn[0]: no job has the id \"kernal\" (did you mean \"kernel\"?)") })
    }

    /// Each hint compares the id with every job's: past the first few, a manifest whose ids
    /// are all misspelled would take minutes to be refused.
    @Test func onlyTheFirstUnknownIdsGetASuggestion() {
        let count = JobIDHints.limit + 5
        let jobs = (0..<count).map { M.download("job\($0)", to: "f\($0)", extra: #", "dependsOn": ["jbo\#($0)"]"#) }
        let lines = M.problems(M.manifest(jobs: jobs.joined(separator: ",")))
        #expect(lines.count == count)
        #expect(lines.prefix(JobIDHints.limit).allSatisfy { $0.contains("(did you mean \"job") })
        #expect(lines.dropFirst(JobIDHints.limit).allSatisfy { !$0.contains("did you mean") })
        #expect(lines.last?.hasSuffix("jobs[\(count - 1)].dependsOn[0]: no job has the id \"jbo\(count - 1)\"") == true)
    }

    @Test func aCycleIsRejectedNamingIt() {
        let jobs = [
            M.download("a", to: "a", extra: #", "dependsOn": ["c"]"#),
            M.download("b", to: "b", extra: #", "dependsOn": ["a"]"#),
            M.download("c", to: "c", extra: #", "dependsOn": ["b"]"#),
        ].joined(separator: ",")
        let lines = M.problems(M.manifest(jobs: jobs))
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix("jobs[0].dependsOn: dependency cycle: a -> c -> b -> a (each depends on the next)") == true)
    }

    @Test func relativeDestinationsResolveUnderOutputDir() throws {
        let plan = try M.plan(M.manifest(jobs: M.download("a", to: "sub/../f.bin"), extra: #""outputDir": "out","#))
        #expect(plan.outputDirectory == "/work/out")
        #expect(plan.jobs[0].destination == "/work/out/f.bin")
    }

    @Test func aDestinationEscapingOutputDirIsRejected() {
        let dotdot = M.problems(M.manifest(jobs: M.download("a", to: "../etc/passwd"), extra: #""outputDir": "out","#))
        #expect(dotdot.contains { $0.contains("jobs[0].download.to: \"../etc/passwd\" resolves to /work/etc/passwd, outside outputDir (/work/out)") })
        let absolute = M.problems(M.manifest(jobs: M.download("a", to: "/tmp/x"), extra: #""outputDir": "out","#))
        #expect(absolute.contains { $0.contains("allowOutsideOutputDir") })
    }

    @Test func allowOutsideOutputDirLetsADestinationEscape() throws {
        let plan = try M.plan(M.manifest(jobs: M.download("a", to: "/tmp/x", extra: #", "allowOutsideOutputDir": true"#), extra: #""outputDir": "out","#))
        #expect(plan.jobs[0].destination == "/tmp/x")
    }

    @Test func aFolderDestinationDefersTheNameToRunTime() throws {
        let plan = try M.plan(M.manifest(jobs: M.download("a", "https://x.org/static/pic.png", to: "img/")))
        guard case .download(let d) = plan.jobs[0].action else { Issue.record(); return }
        #expect(d.to == "/work/img/")
        #expect(d.namesFileAtRunTime)
        #expect(plan.jobs[0].warnings.contains("file name decided at run time: Content-Disposition, else the final URL's last segment (\"pic.png\" unless redirected)"))
    }

    @Test func twoJobsWritingOnePathIsAnError() {
        let lines = M.problems(M.manifest(jobs: M.download("a", to: "f") + "," + M.download("b", to: "./f")))
        #expect(lines.contains { $0.contains("jobs[1].download.to: writes /work/f, which job \"a\" also writes") })
    }

    @Test func readingAnotherJobsOutputRequiresADependency() {
        let jobs = M.download("kernel", to: "out/k.tar") + "," + #"{"id": "up", "upload": {"from": "out/k.tar", "url": "https://m.org/k"}}"#
        let lines = M.problems(M.manifest(jobs: jobs))
        #expect(lines.contains { $0.contains("jobs[1].upload.from: reads /work/out/k.tar, which job \"kernel\" writes, but does not depend on it; add \"dependsOn\": [\"kernel\"]") })
    }

    @Test func aTransitiveDependencyIsEnoughForReading() throws {
        let jobs = [
            M.download("kernel", to: "k.tar"),
            M.download("sig", to: "k.sig", extra: #", "dependsOn": ["kernel"]"#),
            #"{"id": "up", "dependsOn": ["sig"], "upload": {"from": "k.tar", "url": "https://m.org/k"}}"#,
        ].joined(separator: ",")
        #expect(try M.plan(M.manifest(jobs: jobs)).jobs.count == 3)
    }

    @Test func multipartFilesAreReadersToo() {
        let jobs = M.download("a", to: "a.txt") + "," + #"{"id": "f", "upload": {"url": "https://x.org/f", "method": "POST", "multipart": {"files": [{"field": "f", "path": "a.txt"}]}}}"#
        let lines = M.problems(M.manifest(jobs: jobs))
        #expect(lines.contains { $0.contains("jobs[1].upload.multipart.files[0].path: reads /work/a.txt, which job \"a\" writes") })
    }

    @Test func inputsByJobIDAddImplicitDependencies() throws {
        let plan = try M.plan(M.manifest(jobs: M.download("a", to: "a.bin") + "," + #"{"id": "z", "archive": {"from": ["a"], "to": "z.tar"}}"#))
        #expect(plan.jobs[1].dependsOn == ["a"])
        #expect(plan.jobs[1].inputs == [.job(id: "a", path: "/work/a.bin")])
        #expect(plan.graph.waves.count == 2)
    }

    @Test func archiveGlobsMustOnlyMatchOutputsOfDependencies() {
        let jobs = M.download("a", to: "logs/a.log") + "," + #"{"id": "z", "archive": {"from": ["logs/*.log"], "to": "logs.tar"}}"#
        let lines = M.problems(M.manifest(jobs: jobs))
        #expect(lines.contains { $0.contains("jobs[1].archive.from[0]: matches /work/logs/a.log, which job \"a\" writes, but does not depend on it") })
    }

    @Test func aFolderInputNeedsEveryJobWritingInsideIt() throws {
        let jobs = M.download("a", to: "d/a.bin") + "," + M.download("b", to: "d/sub/") + "," + M.download("c", to: "other.bin")
        let without = M.problems(M.manifest(jobs: jobs + #", {"id": "z", "archive": {"from": ["d"], "to": "d.tar"}}"#))
        #expect(without.contains { $0.contains("jobs[3].archive.from[0]: takes the files in /work/d, where job \"a\" writes /work/d/a.bin, but does not depend on it") })
        #expect(without.contains { $0.contains("where job \"b\" writes /work/d/sub/") })
        #expect(without.count == 2)
        let with = try M.plan(M.manifest(jobs: jobs + #", {"id": "z", "dependsOn": ["a", "b"], "archive": {"from": ["d"], "to": "d.tar"}}"#))
        #expect(with.jobs[3].dependsOn == ["a", "b"])
    }

    @Test func anArchiveOfAnUploadIsAnError() {
        let jobs = #"{"id": "u", "upload": {"from": "x", "url": "https://x.org/u"}}, {"id": "z", "archive": {"from": ["u"], "to": "z.tar"}}"#
        let lines = M.problems(M.manifest(jobs: jobs))
        #expect(lines.contains { $0.contains("job \"u\" is an upload and produces no file to archive") })
    }

    @Test func uploadSourcesResolveAgainstTheManifestFolder() throws {
        let plan = try M.plan(M.manifest(jobs: #"{"id": "u", "upload": {"from": "files/1.txt", "url": "https://x.org/u"}}"#, extra: #""outputDir": "out","#))
        #expect(plan.jobs[0].source == "/work/files/1.txt")
    }

    @Test func defaultsAreInheritedKeyByKey() throws {
        let json = M.manifest(
            jobs: #"{"id": "a", "download": {"url": "https://x.org/a", "retry": {"attempts": 2}, "timeouts": {"stall": "5s"}, "headers": {"user-agent": "mine", "X-Extra": "1"}}}"#
                + "," + M.download("b", to: "b"),
            extra: #""defaults": {"retry": {"attempts": 7, "maxDelay": "1m"}, "timeouts": {"connect": "3s"}, "headers": {"User-Agent": "xferbatch"}, "auth": {"bearer": {"tokenEnv": "T"}}},"#)
        let plan = try M.plan(json, environment: ["T": "x"])
        let a = try #require(plan.jobs[0].transfer)
        #expect(a.retry.attempts == 2)
        #expect(a.retry.maxDelay == .seconds(60))
        #expect(a.retry.initialDelay == RetryPolicy.defaultInitialDelay)
        #expect(a.connectTimeout == .seconds(3))
        #expect(a.stallTimeout == .seconds(5))
        #expect(a.headers == [Header(name: "user-agent", value: .literal("mine")), Header(name: "X-Extra", value: .literal("1"))])
        #expect(a.auth == .bearer(tokenEnv: "T"))
        let b = try #require(plan.jobs[1].transfer)
        #expect(b.retry.attempts == 7)
        #expect(b.stallTimeout == TimeoutSettings.defaultStall)
        #expect(b.headers == [Header(name: "User-Agent", value: .literal("xferbatch"))])
    }

    @Test func warnsAboutMissingChecksumsInsecureTLSAndUnsetSecrets() throws {
        let json = M.manifest(jobs: #"{"id": "a", "download": {"url": "http://x.org/a", "to": "a", "tls": {"insecure": true}, "auth": {"bearer": {"tokenEnv": "TOKEN"}}}}"#)
        let warnings = try M.plan(json).jobs[0].warnings
        #expect(warnings.contains("no sha256: the downloaded content is not verified"))
        #expect(warnings.contains { $0.contains("TLS certificate verification is OFF") })
        #expect(warnings.contains("environment variable TOKEN is not set here; the run will need it"))
        #expect(warnings.contains("credentials are sent unencrypted over http"))
    }

    /// A key's passphrase is a secret like a token: named by its variable, which the plan
    /// shows and asks for, never its value; nothing is sent over http because of it.
    @Test func anSFTPKeysPassphraseIsNamedByItsVariable() throws {
        let json = M.manifest(jobs: #"{"id": "s", "download": {"url": "sftp://deploy@h/f", "to": "f"}}, {"id": "w", "download": {"url": "http://h/g", "to": "g"}}"#,
                              extra: #""defaults": {"sftp": {"passphraseEnv": "KEYPASS"}},"#)
        let unset = try M.plan(json)
        #expect(unset.jobs[0].transfer?.passphraseEnv == "KEYPASS")
        #expect(unset.jobs[0].warnings.contains("environment variable KEYPASS is not set here; the run will need it"))
        #expect(!unset.jobs[1].warnings.contains("credentials are sent unencrypted over http"))
        let text = String(decoding: try M.plan(json, environment: ["KEYPASS": "hunter2"]).json(), as: UTF8.self)
        #expect(text.contains(#""passphraseEnv":"KEYPASS""#))
        #expect(!text.contains("hunter2"))
    }

    /// Mutual TLS: the client certificate and key are paths resolved like every other, the
    /// key's passphrase is named by its variable, never shown; a key without a certificate
    /// is said to do nothing.
    @Test func aClientCertificateIsAPathAndItsKeysPassphraseAVariable() throws {
        let tls = #""tls": {"clientCert": "certs/me.pem", "clientKey": "~/me.key", "keyPassphraseEnv": "KEYPASS"}"#
        let json = M.manifest(jobs: #"{"id": "a", "download": {"url": "https://h/f", "to": "f"}}"#, extra: #""defaults": {\#(tls)},"#)
        let plan = try M.plan(json, environment: ["HOME": "/home/me", "KEYPASS": "hunter2"])
        let t = try #require(plan.jobs[0].transfer)
        #expect(t.clientCert == "/work/certs/me.pem")
        #expect(t.clientKey == "/home/me/me.key")
        #expect(t.secretVariables.contains("KEYPASS"))
        #expect(plan.text().contains("client certificate /work/certs/me.pem, key /home/me/me.key ($KEYPASS)"))
        let text = String(decoding: plan.json(), as: UTF8.self)
        #expect(text.contains(#""clientCert":"/work/certs/me.pem""#) && text.contains(#""keyPassphraseEnv":"KEYPASS""#))
        #expect(!text.contains("hunter2"))
        let unset = try M.plan(json, environment: ["HOME": "/home/me"])
        #expect(unset.jobs[0].warnings.contains("environment variable KEYPASS is not set here; the run will need it"))
        let keyOnly = M.manifest(jobs: #"{"id": "a", "download": {"url": "https://h/f", "to": "f", "tls": {"clientKey": "me.key"}}}"#)
        #expect(try M.plan(keyOnly).jobs[0].warnings.contains { $0.hasPrefix("tls.clientKey and tls.keyPassphraseEnv are not used without tls.clientCert") })
    }

    /// A form field taking a secret variable (`"token": "${API_TOKEN}"`) was printed by
    /// `plan --format json`. Now it reads REDACTED, as does a field whose name says it
    /// holds a secret; a rotated token is not an edited job, another channel is.
    @Test func aFormFieldFromASecretVariableIsNeverShown() throws {
        func manifest(channel: String) -> String {
            M.manifest(jobs: #"{"id": "u", "upload": {"url": "https://x.org/api", "method": "POST", "multipart": {"fields": {"token": "${API_TOKEN}", "api_key": "k-123", "channel": "\#(channel)"}, "files": [{"field": "f", "path": "/etc/hostname"}]}}}"#)
        }
        let plan = try M.plan(manifest(channel: "ops"), environment: ["API_TOKEN": "supersecret123"])
        let json = String(decoding: plan.json(), as: UTF8.self)
        #expect(json.contains(#""fields":{"token":"REDACTED","api_key":"REDACTED","channel":"ops"}"#), "\(json)")
        #expect(!json.contains("supersecret123") && !plan.text().contains("supersecret123"))
        let rotated = try M.plan(manifest(channel: "ops"), environment: ["API_TOKEN": "another"])
        #expect(JobFingerprint.of(rotated.jobs[0]) == JobFingerprint.of(plan.jobs[0]))
        let moved = try M.plan(manifest(channel: "dev"), environment: ["API_TOKEN": "supersecret123"])
        #expect(JobFingerprint.of(moved.jobs[0]) != JobFingerprint.of(plan.jobs[0]))
    }

    /// A URL taking a token from a secret variable (`?token=${API_TOKEN}`): a rotated
    /// token is not an edited job (every file of a nightly sync was downloaded again), and
    /// no hash of it is stored; another literal part of the URL is another job.
    @Test func aTokenInAURLFromTheEnvironmentIsNotPartOfTheFingerprint() throws {
        func job(_ path: String, _ token: String, upload: Bool = false) throws -> PlannedJob {
            let url = "https://x.org/\(path)?token=${API_TOKEN}"
            let job = upload ? #"{"id": "a", "upload": {"from": "/etc/hostname", "url": "\#(url)"}}"#
                : #"{"id": "a", "download": {"url": "\#(url)", "to": "f"}}"#
            return try M.plan(M.manifest(jobs: job), environment: ["API_TOKEN": token]).jobs[0]
        }
        #expect(JobFingerprint.of(try job("f", "one")) == JobFingerprint.of(try job("f", "two")))
        #expect(JobFingerprint.of(try job("f", "one")) != JobFingerprint.of(try job("g", "one")))
        #expect(JobFingerprint.of(try job("f", "one", upload: true)) == JobFingerprint.of(try job("f", "two", upload: true)))
    }

    /// `~/` means the home folder wherever a path is written, as in a shell: before, an
    /// `outputDir` of `~/mirror` was a folder named `~` beside the manifest.
    @Test func tildeMeansHomeInOutputDirAndEveryPath() throws {
        let json = #"{"version": 1, "outputDir": "~/mirror", "jobs": [{"id": "d", "download": {"url": "https://h/f", "to": "~/mirror/sub/f"}},"#
            + #"{"id": "u", "upload": {"from": "~/report.txt", "url": "https://h/r"}},"#
            + #"{"id": "a", "archive": {"from": ["~/mirror/logs"], "to": "~/mirror/logs.tar.gz"}}]}"#
        let plan = try M.plan(json, environment: ["HOME": "/home/me"])
        #expect(plan.outputDirectory == "/home/me/mirror")
        guard case .download(let d) = plan.jobs[0].action, case .upload(let u) = plan.jobs[1].action, case .archive(let a) = plan.jobs[2].action else {
            Issue.record("unexpected actions")
            return
        }
        #expect(d.to == "/home/me/mirror/sub/f")
        #expect(u.sourcePaths == ["/home/me/report.txt"])
        #expect(a.to == "/home/me/mirror/logs.tar.gz")
        #expect(plan.jobs[2].inputs == [.path("/home/me/mirror/logs")])
    }

    /// With explicit FTPS the login does not go in clear: no warning that it does, and the
    /// plan says how the transfer is protected.
    @Test func explicitFTPSIsShownAndSilencesTheClearCredentialsWarning() throws {
        let json = M.manifest(jobs: #"{"id": "f", "download": {"url": "ftp://h/f", "to": "f", "auth": {"basic": {"userEnv": "U", "passwordEnv": "P"}}, "tls": {"explicitFTPS": true}}}, {"id": "g", "download": {"url": "ftp://h/g", "to": "g", "auth": {"basic": {"userEnv": "U", "passwordEnv": "P"}}}}"#)
        let plan = try M.plan(json, environment: ["U": "u", "P": "p"])
        #expect(plan.jobs[0].transfer?.explicitFTPS == true)
        #expect(!plan.jobs[0].warnings.contains("credentials are sent unencrypted over ftp"))
        #expect(plan.jobs[1].warnings.contains("credentials are sent unencrypted over ftp"))
        #expect(plan.text().contains("explicit FTPS"))
        #expect(String(decoding: plan.json(), as: UTF8.self).contains(#""explicitFTPS":true"#))
    }

    /// Without `HOME` (`env -i`, some systemd units), `~` is the user's home folder from the
    /// password database, as in a shell: before, the run wrote into a folder named `~`.
    @Test func withoutHOMETildeIsTheAccountsHomeFolderNotAFolderNamedTilde() throws {
        let json = #"{"version": 1, "outputDir": "~/mirror", "jobs": [{"id": "d", "download": {"url": "https://h/f", "to": "f"}}]}"#
        for environment in [[:], ["HOME": ""]] {
            let plan = try M.plan(json, environment: environment)
            #expect(plan.outputDirectory == NSHomeDirectory() + "/mirror")
            #expect(!plan.outputDirectory.contains("~"))
        }
    }

    @Test func tildePathsUseHome() throws {
        let json = M.manifest(jobs: #"{"id": "u", "upload": {"from": "f", "url": "sftp://h/f", "sftp": {"knownHosts": "~/.ssh/kh"}}}"#)
        #expect(try M.plan(json, environment: ["HOME": "/home/me"]).jobs[0].transfer?.knownHosts == "/home/me/.ssh/kh")
    }
}

@Suite("Planner: extract jobs")
struct ExtractPlanningTests {
    typealias M = ManifestTesting

    @Test func anExtractDependsOnItsArchiveAndOwnsAFolder() throws {
        let plan = try M.plan(M.manifest(jobs: M.download("a", to: "a.zip") + "," + #"{"id": "x", "extract": {"from": "a", "to": "a"}}"#))
        #expect(plan.jobs[1].dependsOn == ["a"])
        #expect(plan.jobs[1].inputs == [.job(id: "a", path: "/work/a.zip")])
        #expect(plan.jobs[1].destination == "/work/a/")
    }

    @Test func anUnknownSourceIsNamedWithASuggestion() {
        let lines = M.problems(M.manifest(jobs: M.download("artifact", to: "a.zip") + "," + #"{"id": "x", "extract": {"from": "artifcat", "to": "a/"}}"#))
        #expect(lines.contains { $0.contains("jobs[1].extract.from: no job \"artifcat\" in this manifest (did you mean \"artifact\"?)") })
    }

    @Test func anUploadOrAnotherExtractionIsNoArchive() {
        let jobs = #"{"id": "u", "upload": {"from": "x", "url": "https://x.org/u"}}, {"id": "x", "extract": {"from": "u", "to": "x/"}}"#
        #expect(M.problems(M.manifest(jobs: jobs)).contains { $0.contains("jobs[1].extract.from: job \"u\" is an upload and produces no file to extract") })
        let chained = M.download("a", to: "a.zip") + #", {"id": "x", "extract": {"from": "a", "to": "x/"}}, {"id": "y", "extract": {"from": "x", "to": "y/"}}"#
        #expect(M.problems(M.manifest(jobs: chained)).contains { $0.contains("job \"x\" is an extraction and produces a folder to extract") })
    }

    @Test func nothingElseMayWriteInsideTheFolder() {
        let jobs = M.download("a", to: "a.zip") + "," + M.download("b", to: "x/b.bin") + #", {"id": "x", "extract": {"from": "a", "to": "x/"}}"#
        let lines = M.problems(M.manifest(jobs: jobs))
        #expect(lines.contains { $0.contains("jobs[1].download.to: writes /work/x/b.bin inside /work/x/, which extract job \"x\" replaces as a whole") })
    }

    @Test func readingInsideTheFolderNeedsTheExtraction() {
        let jobs = M.download("a", to: "a.zip") + #", {"id": "x", "extract": {"from": "a", "to": "x/"}}"#
            + #", {"id": "u", "upload": {"from": "x/report.xml", "url": "https://x.org/u"}}"#
            + #", {"id": "z", "archive": {"from": ["x/**/*.log"], "to": "logs.tar"}}"#
        let lines = M.problems(M.manifest(jobs: jobs, extra: #""outputDir": ".","#))
        #expect(lines.contains { $0.contains("jobs[2].upload.from: reads /work/x/report.xml inside /work/x/, which extract job \"x\" writes, but does not depend on it") })
        #expect(lines.contains { $0.contains("jobs[3].archive.from[0]: can match files inside /work/x/, which extract job \"x\" writes") })
    }

    /// A glob that cannot reach inside an extraction's folder needs no dependency on it.
    /// Before, any glob in the folder above one was told to depend on the extraction, which
    /// for an archive the extraction unpacks (pack `big*.bin`, extract it into `x/`) could
    /// only be satisfied by a cycle.
    @Test func aGlobThatCannotReachInsideAnExtractionsFolderNeedsNoDependency() throws {
        let jobs = M.download("a", to: "big1.bin") + #", {"id": "pack", "dependsOn": ["a"], "archive": {"from": ["big*.bin"], "to": "all.tar"}}"#
            + #", {"id": "x", "extract": {"from": "pack", "to": "x/"}}"#
        let plan = try M.plan(M.manifest(jobs: jobs))
        #expect(plan.jobs[2].dependsOn == ["pack"])
        for reaching in ["*/a.log", "x*/a.log", "**/*.log", "x/**"] {
            let lines = M.problems(M.manifest(jobs: jobs + #", {"id": "z", "archive": {"from": ["\#(reaching)"], "to": "logs.tar"}}"#))
            #expect(lines.contains { $0.contains("jobs[3].archive.from[0]: can match files inside /work/x/, which extract job \"x\" writes") }, "\(reaching)")
        }
        for missing in ["*.log", "y*/a.log", "x*"] {
            let plan = try M.plan(M.manifest(jobs: jobs + #", {"id": "z", "archive": {"from": ["\#(missing)"], "to": "logs.tar"}}"#))
            #expect(plan.jobs[3].dependsOn.isEmpty, "\(missing)")
        }
    }

    @Test func theOutputFolderItselfIsNotAnExtractionTarget() {
        let lines = M.problems(M.manifest(jobs: M.download("a", to: "a.zip") + #", {"id": "x", "extract": {"from": "a", "to": "./"}}"#))
        #expect(lines.contains { $0.contains("jobs[1].extract.to: an extraction replaces its folder as a whole") })
    }

    @Test func limitsAndFormatAreCheckedWhereTheyAreWritten() {
        let jobs = M.download("a", to: "a.zip") + #", {"id": "x", "extract": {"from": "a", "to": "x/", "format": "rar", "maxBytes": "lots", "maxEntries": 0}}"#
        let lines = M.problems(M.manifest(jobs: jobs))
        #expect(lines.contains { $0.contains("jobs[1].extract.format: \"rar\" is not one of \"auto\"") })
        #expect(lines.contains { $0.contains("jobs[1].extract.maxBytes: \"lots\" is not a size") })
        #expect(lines.contains { $0.contains("jobs[1].extract.maxEntries: expected an integer from 1") })
    }
}

@Suite("Planning: the run's own files")
struct OwnFilesPlanningTests {
    typealias M = ManifestTesting

    @Test func aDownloadToTheManifestItselfIsAnErrorAtItsPlace() {
        let lines = M.problems(M.manifest(jobs: M.download("a", to: "b.bin") + "," + M.download("m", to: "./m.json"), extra: #""outputDir": ".","#))
        #expect(lines.contains { $0.contains("jobs[1].download.to: writes /work/m.json, which is the manifest itself") })
        #expect(lines.count == 1)
    }

    @Test func anArchiveToTheManifestItselfIsAnError() {
        let jobs = M.download("a", to: "a.bin") + #", {"id": "z", "archive": {"from": ["a"], "to": "../m.json", "format": "zip"}}"#
        let lines = M.problems(M.manifest(jobs: jobs, extra: #""outputDir": "out","#))
        // Outside outputDir, and the manifest: both said.
        #expect(lines.contains { $0.contains("jobs[1].archive.to: writes /work/m.json, which is the manifest itself") })
    }

    @Test func aDestinationInsideTheStateFoldersIsAnError() {
        let file = M.problems(M.manifest(jobs: M.download("a", to: ".xferbatch/m.json/checkpoints.sqlite"), extra: #""outputDir": ".","#))
        #expect(file.contains { $0.contains("jobs[0].download.to: writes inside /work/.xferbatch, where runs keep their checkpoints and locks") })
        let folder = M.problems(M.manifest(jobs: M.download("a", to: ".xferbatch/"), extra: #""outputDir": ".","#))
        #expect(folder.contains { $0.contains("jobs[0].download.to: writes inside /work/.xferbatch") })
    }

    /// `--state .` is allowed beside outputs; replacing the files it keeps is not.
    @Test func aDestinationThatIsAFileOfTheStateFolderGivenWithStateIsAnError() throws {
        let json = M.manifest(jobs: M.download("a", to: "keep/checkpoints.sqlite") + "," + M.download("b", to: "keep/b.bin")
                              + "," + #"{"id": "x", "extract": {"from": "b", "to": "keep/"}}"#, extra: #""outputDir": ".","#)
        let loaded = try ManifestLoader(environment: [:]).decode(bytes: Array(json.utf8), path: "m.json", directory: M.directory)
        let error = try #require(throws: ManifestError.self) { try Planner(environment: [:]).plan(loaded, stateFolder: "/work/keep") }
        #expect(error.lines.contains { $0.contains("jobs[0].download.to: writes /work/keep/checkpoints.sqlite, a file the state folder /work/keep keeps") })
        #expect(error.lines.contains { $0.contains("jobs[2].extract.to: replaces /work/keep/ as a whole, and it holds the state folder") })
        #expect(!error.lines.contains { $0.contains("jobs[1]") && $0.contains("state folder") }, "b.bin may sit beside the state files")
    }

    @Test func anExtractionReplacingTheFolderThatHoldsTheManifestIsAnError() {
        let jobs = M.download("a", to: "a.zip") + #", {"id": "x", "allowOutsideOutputDir": true, "extract": {"from": "a", "to": "../"}}"#
        let lines = M.problems(M.manifest(jobs: jobs, extra: #""outputDir": "out","#))
        #expect(lines.contains { $0.contains("jobs[1].extract.to: replaces /work/ as a whole, and it holds the manifest (/work/m.json)") })
    }

    @Test func aFileBesideTheManifestWithAnotherNameIsAllowed() throws {
        let plan = try M.plan(M.manifest(jobs: M.download("a", to: "m.json.bak") + "," + M.download("b", to: "xferbatch/b"), extra: #""outputDir": ".","#))
        #expect(plan.jobs.map(\.destination) == ["/work/m.json.bak", "/work/xferbatch/b"])
    }
}
