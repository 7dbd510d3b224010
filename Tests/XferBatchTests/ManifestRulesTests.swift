import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import XferBatch

@Suite("Manifest rules")
struct ManifestRulesTests {
    typealias M = ManifestTesting

    @Test func versionIsRequired() {
        let lines = M.problems(#"{"jobs": []}"#)
        #expect(lines.contains { $0.contains("missing required key \"version\"") })
    }

    @Test func versionMustBeOne() {
        let lines = M.problems(#"{"version": 2, "jobs": []}"#)
        #expect(lines == ["m.json:1:13: version: unsupported manifest version 2; this xferbatch reads version 1"])
    }

    @Test func anotherVersionIsReportedAloneEvenWithJobsWeDoNotUnderstand() {
        let lines = M.problems(#"{"version": 2, "jobs": [{"id": "a", "fetch": {"from": "x"}}]}"#)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("unsupported manifest version 2") == true)
    }

    @Test func aBandwidthIsARateAboveZero() {
        #expect(M.problems(#"{"version": 1, "limits": {"bandwidth": "8MBps"}, "jobs": []}"#)
            .contains("m.json:1:40: limits.bandwidth: \"8MBps\" is not a rate; write a size per second, e.g. \"50MiB/s\""))
        #expect(M.problems(#"{"version": 1, "limits": {"bandwidth": "0MB/s"}, "jobs": []}"#)
            .contains("m.json:1:40: limits.bandwidth: \"0MB/s\" would let nothing through; leave bandwidth out for no cap"))
    }

    @Test func jobsMustBeANonEmptyArray() {
        #expect(M.problems(#"{"version": 1, "jobs": {"id": "a"}}"#).contains { $0.contains("jobs: expected an array of jobs, found an object") })
        #expect(M.problems(#"{"version": 1, "jobs": []}"#).contains { $0.contains("jobs: there are no jobs") })
    }

    @Test func jobsBeforeVersionAreDecodedAndPositionedToo() {
        let lines = M.problems(#"{"jobs": [{"id": "a", "download": {"url": 1}}], "version": 1}"#)
        #expect(lines == ["m.json:1:43: jobs[0].download.url: expected a string, found a number"])
    }

    @Test func aDestinationNameLongerThanFileSystemsAcceptIsAnErrorAtItsPlace() {
        let long = String(repeating: "n", count: 256)
        let lines = M.problems(M.manifest(jobs: M.download("a", to: "out/\(long)/f.bin"), extra: #""outputDir": "o/\#(long)","#))
        #expect(lines.contains { $0.hasSuffix("jobs[0].download.to: the name \"nnnnnnnnnnnnnnnnnnnnnnnn…\" is 256 bytes long; file systems accept at most 255") })
        #expect(lines.contains { $0.contains("outputDir: the name") })
        let longest = String(repeating: "n", count: 255)
        #expect(throws: Never.self) { try M.plan(M.manifest(jobs: M.download("a", to: longest))) }
    }

    @Test func unknownKeysAreErrorsWithASuggestion() {
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "dependson": [], "download": {"url": "https://x.org/f", "sha265": "ab"}}"#))
        #expect(lines.contains { $0.hasSuffix("jobs[0].dependson: unknown key \"dependson\" (did you mean \"dependsOn\"?)") })
        #expect(lines.contains { $0.hasSuffix("jobs[0].download.sha265: unknown key \"sha265\" (did you mean \"sha256\"?)") })
    }

    @Test func aSHA256IsHexOfAnyCaseWithAnOptionalPrefixAndStoredInLowerCase() throws {
        let hex = String(repeating: "Ab", count: 32)
        for written in [hex, "sha256:" + hex, "SHA256:" + hex] {
            let plan = try M.plan(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/f", "sha256": "\#(written)"}}"#))
            guard case .download(let d) = plan.jobs[0].action else { Issue.record("not a download"); return }
            #expect(d.sha256 == hex.lowercased())
        }
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/f", "sha256": "md5:\#(hex)"}}"#))
        #expect(lines.contains { $0.hasSuffix("jobs[0].download.sha256: sha256 must be 64 hexadecimal digits, found 68 characters") })
    }

    @Test(arguments: ["ftp://x.org/pub/", "sftp://x.org/home/me/", "ftps://x.org/"])
    func anFTPOrSFTPDownloadOfAFolderIsAnError(url: String) {
        let lines = M.problems(M.manifest(jobs: M.download("a", url, to: "a.bin")))
        #expect(lines.contains { $0.hasSuffix("jobs[0].download.url: \(url) names a folder (it ends with /): a download fetches one file, not a listing") },
                "\(lines)")
    }

    @Test func unknownKeysInDefaultsAreErrors() {
        let lines = M.problems(M.manifest(jobs: M.download("a"), extra: #""defaults": {"retries": {"attempts": 2}},"#))
        #expect(lines.contains { $0.contains("defaults.retries: unknown key \"retries\" (did you mean \"retry\"?)") })
    }

    /// A key spelled out in full where the manifest abbreviates it is a typo too, as is the
    /// beginning of a key.
    @Test func aKeySpelledOutInFullOrCutShortIsSuggestedTheKey() {
        let lines = M.problems(M.manifest(jobs: #"{"id": "u", "upload": {"from": "a.txt", "url": "ftp://x.org/in/", "createMissingDirectories": true}}"#
                                              + #", {"id": "d", "download": {"url": "https://x.org/d", "sha": "00"}}"#))
        #expect(lines.contains { $0.contains("unknown key \"createMissingDirectories\" (did you mean \"createMissingDirs\"?)") }, "\(lines)")
        #expect(lines.contains { $0.contains("unknown key \"sha\" (did you mean \"sha256\"?)") }, "\(lines)")
    }

    /// A key put one level off says where it goes.
    @Test func aKeyAtTheWrongLevelSaysWhereItGoes() {
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/a", "dependsOn": ["b"]}}, "#
                                              + #"{"id": "b", "retry": {"attempts": 2}, "download": {"url": "https://x.org/b"}}"#,
                                          extra: #""concurrency": 4,"#))
        #expect(lines.contains { $0.hasSuffix(#"jobs[0].download.dependsOn: unknown key "dependsOn" here (a job's key: put it beside the job's "id")"#) }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(#"jobs[1].retry: unknown key "retry" here (a transfer setting: put it in the job's "download" or "upload", or in "defaults" for every job)"#) }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(#"concurrency: unknown key "concurrency" here (a limit: put it in "limits")"#) }, "\(lines)")
    }

    @Test func jobIDsMustUseTheAllowedCharacters() {
        let lines = M.problems(M.manifest(jobs: M.download("no spaces")))
        #expect(lines.contains { $0.contains("jobs[0].id: job id \"no spaces\" may only contain letters, digits") })
    }

    @Test func jobIDsMustBeUnique() {
        let lines = M.problems(M.manifest(jobs: M.download("a", to: "1") + "," + M.download("a", to: "2")))
        #expect(lines.contains { $0.contains("jobs[1].id: duplicate job id \"a\" (first used by jobs[0])") })
    }

    @Test func aJobHasExactlyOneAction() {
        let none = M.problems(M.manifest(jobs: #"{"id": "a"}"#))
        #expect(none.contains { $0.contains("jobs[0]: a job needs exactly one of") })
        let two = M.problems(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/a"}, "archive": {"from": ["b"], "to": "x.tar"}}"#))
        #expect(two.contains { $0.contains("found \"download\" and \"archive\"") })
    }

    @Test func wrongTypesNameTheExpectedType() {
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "optional": "yes", "priority": 1.5, "download": {"url": 42}}"#))
        #expect(lines.contains { $0.contains("jobs[0].optional: expected true or false, found a string") })
        #expect(lines.contains { $0.contains("jobs[0].priority: expected an integer") })
        #expect(lines.contains { $0.contains("jobs[0].download.url: expected a string, found a number") })
    }

    @Test func reportsEveryProblemInOnePassInSourceOrder() {
        let json = """
        {
          "version": 1,
          "limits": {"concurrency": 0},
          "jobs": [
            {"id": "a", "download": {"url": "gopher://x.org/f"}},
            {"id": "b", "download": {"url": "https://x.org/f", "size": "10 MB"}}
          ]
        }
        """
        let lines = M.problems(json)
        #expect(lines == [
            "m.json:3:29: limits.concurrency: expected an integer from 1 to 10000, found 0",
            "m.json:5:37: jobs[0].download.url: unsupported scheme \"gopher\"; use one of data, file, ftp, ftps, http, https, sftp",
            "m.json:6:64: jobs[1].download.size: \"10 MB\" is not a size; write bytes as an integer or a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, e.g. \"512KiB\"",
        ])
    }

    @Test func malformedJSONIsOneErrorWithItsPosition() {
        let lines = M.problems("{\n  \"version\": 1,\n  \"jobs\": [,]\n}")
        #expect(lines == ["m.json:3:12: invalid JSON: unexpected ','; expected a value"])
    }

    @Test func nonUTF8BytesAreRefusedWithTheirPosition() {
        let bytes = Array(#"{"version": 1, "name": ""#.utf8) + [0xFF] + Array(#"", "jobs": []}"#.utf8)
        #expect(throws: ManifestError.self) {
            _ = try ManifestLoader(environment: [:]).decode(bytes: bytes, path: "m.json", directory: "/w")
        }
        do {
            _ = try ManifestLoader(environment: [:]).decode(bytes: bytes, path: "m.json", directory: "/w")
        } catch {
            #expect(error.lines == ["m.json:1:25: the file is not valid UTF-8 (byte 0xFF at offset 24)"])
        }
    }

    @Test func userinfoInAURLIsRefusedPointingToAuth() {
        let lines = M.problems(M.manifest(jobs: M.download("a", "https://bob:secret@x.org/f")))
        #expect(lines.count == 1)
        #expect(lines[0].contains("credentials in the URL (user:pass@, or a token as user@) are refused"))
        #expect(lines[0].contains("\"auth\""))
        #expect(!lines[0].contains("secret@"), "the error itself must not echo the password")
    }

    /// "auth" would send a proxy's credentials to the server: the advice names the variable
    /// libcurl reads them from.
    @Test func userinfoInAProxyURLIsRefusedPointingToTheProxyVariable() {
        let lines = M.problems(M.manifest(jobs: M.download("a"), extra: #""defaults": {"proxy": "http://bob:secret@proxy:3128"},"#))
        #expect(lines.count == 1)
        #expect(lines[0].contains("defaults.proxy: credentials in a proxy URL are refused"), "\(lines)")
        #expect(lines[0].contains("https_proxy") && !lines[0].contains("\"auth\"") && !lines[0].contains("secret@"))
    }

    @Test func literalAuthorizationHeadersAreRefused() {
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/f", "headers": {"Authorization": "Bearer abc"}}}"#))
        #expect(lines.contains { $0.contains("headers.Authorization: a literal Authorization header would put a secret in the manifest") })
    }

    /// `\r\n` is one Character in Swift: a check by Character for `\r` or `\n` let it by,
    /// and libcurl sent the rest of the value as a header of its own.
    @Test(arguments: [#"a\r\nX-Injected: 1"#, #"a\nb"#, #"a\rb"#, #"a\u0000b"#, #"a\u001b[2Jb"#, #"a\u007fb"#])
    func aHeaderValueWithALineBreakOrAControlCharacterIsRefused(value: String) {
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/f", "headers": {"X-A": "\#(value)"}}}"#))
        #expect(lines.contains { $0.contains("headers.X-A: a header value must not contain line breaks or other control characters") }, "\(lines)")
    }

    /// A content type goes into a header too (the request's, or a multipart part's):
    /// libcurl sent `text/plain\r\nX-Injected: 1` as two headers.
    @Test(arguments: [(#"{"from": "f.txt", "contentType": "text/plain\r\nX-Injected: 1"}"#, "upload.contentType"),
                      (#"{"multipart": {"files": [{"field": "f", "path": "f.txt", "contentType": "text/plain\nX: 1"}]}}"#,
                       "upload.multipart.files[0].contentType")])
    func aContentTypeWithALineBreakIsRefused(upload: String, path: String) {
        let job = #"{"id": "a", "upload": {"url": "https://x.org/up", "#
        let lines = M.problems(M.manifest(jobs: job + upload.dropFirst() + "}"))
        #expect(lines.contains { $0.contains("\(path): must not contain line breaks or other control characters: it is sent in a header") }, "\(lines)")
    }

    /// Headers the run sets itself: a `Range` of the manifest's had nginx answer 206 with
    /// the first 100 bytes, stored as the whole file.
    @Test(arguments: ["Range", "if-range", "If-None-Match", "If-Modified-Since", "Content-Length", "Transfer-Encoding"])
    func aHeaderTheRunSetsItselfIsRefused(name: String) {
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/f", "headers": {"\#(name)": "bytes=0-99"}}}"#))
        #expect(lines.contains { $0.contains("headers.\(name): a \(name) header cannot be set: ") }, "\(lines)")
    }

    /// Names ending in `.xferpart` are those of files in progress: a download to
    /// `b.bin.xferpart` was cut and overwritten by the job downloading `b.bin`, and that
    /// job's bytes went into place under its name.
    @Test(arguments: [(#"{"id": "a", "download": {"url": "https://x.org/f", "to": "b.bin.xferpart"}}"#, "jobs[0].download.to"),
                      (#"{"id": "a", "archive": {"from": ["f"], "to": "all.tar.xferpart"}}"#, "jobs[0].archive.to"),
                      (#"{"id": "a", "extract": {"from": "x", "to": "dir.xferpart/"}}"#, "jobs[0].extract.to"),
                      (#"{"id": "a", "download": {"url": "https://x.org/f", "to": "d.xferpart/f"}}"#, "jobs[0].download.to")])
    func aDestinationNamedLikeAFileInProgressIsRefused(job: String, path: String) {
        let lines = M.problems(M.manifest(jobs: job))
        #expect(lines.contains { $0.contains("\(path): \"") && $0.contains("names ending in .xferpart are those of files in progress") }, "\(lines)")
    }

    @Test func inPlaceIsNotForHTTP() {
        let lines = M.problems(M.manifest(jobs: #"{"id": "u", "upload": {"url": "https://x.org/f", "from": "f.txt", "inPlace": true}}"#))
        #expect(lines.contains { $0.contains(#"jobs[0].upload.inPlace: "inPlace" is for FTP, SFTP and file: uploads"#) }, "\(lines)")
    }

    /// The part of the upload to `b.bin` is stored as `b.bin.xferpart` (FTP, SFTP, file:):
    /// an upload to that name would be overwritten by it, then renamed away. An HTTP
    /// server names its own temporary files.
    @Test(arguments: ["ftp://x.org/pub/b.bin.xferpart", "sftp://x.org/srv/b.bin.xferpar%74", "file:///srv/b.bin.xferpart"])
    func anUploadNamedLikeAPartIsRefused(url: String) throws {
        let lines = M.problems(M.manifest(jobs: #"{"id": "u", "upload": {"url": "\#(url)", "from": "f.txt"}}"#))
        #expect(lines.contains { $0.contains("jobs[0].upload.url: \(url): names ending in .xferpart are those of files in progress") }, "\(lines)")
        let http = try M.plan(M.manifest(jobs: #"{"id": "u", "upload": {"url": "https://x.org/b.bin.xferpart", "from": "f.txt"}}"#))
        #expect(http.jobs.map(\.id) == ["u"])
    }

    /// An archive's prefix may not lead its entries out of the archive's folder: `../`
    /// made `../a.txt`, which an extraction refuses, or a careless tool writes outside.
    @Test(arguments: ["../", "/abs/", "a/../../", "..", "x/..", "/\u{301}x/", "\u{600}/../"])
    func anArchivePrefixLeavingItsFolderIsRefused(prefix: String) {
        let lines = M.problems(M.manifest(jobs: #"{"id": "z", "archive": {"from": ["f"], "to": "z.tar", "prefix": "\#(prefix)"}}"#))
        #expect(lines.contains { $0.contains("jobs[0].archive.prefix: \"\(prefix)\" would name entries outside the archive's folder") }, "\(lines)")
    }

    @Test func anArchivePrefixMayNameFoldersAndDotsInNames() throws {
        let plan = try M.plan(M.manifest(jobs: #"{"id": "z", "archive": {"from": ["f"], "to": "z.tar", "prefix": "bundle..v1/./x/"}}"#))
        guard case .archive(let a) = plan.jobs[0].action else { Issue.record("not an archive"); return }
        #expect(a.prefix == "bundle..v1/./x/")
    }

    @Test func aHeaderValueMayHoldTabsAndTextBeyondASCII() throws {
        let plan = try M.plan(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/f", "headers": {"X-A": "a\tcafé b"}}}"#))
        #expect(plan.jobs[0].transfer?.headers == [Header(name: "X-A", value: .literal("a\tcafé b"))])
    }

    @Test func secretsAreReferencedOnlyByVariableName() {
        let lines = M.problems(M.manifest(jobs: #"{"id": "a", "download": {"url": "https://x.org/f", "auth": {"bearer": {"tokenEnv": "ghp_abc123-not-a-name"}}}}"#))
        #expect(lines.contains { $0.contains("auth.bearer.tokenEnv: \"ghp_abc123-not-a-name\" is not an environment variable name") })
    }

    @Test func durationsAreParsedStrictly() {
        let lines = M.problems(M.manifest(jobs: M.download("a"), extra: #""defaults": {"timeouts": {"connect": "10", "total": "1.5h", "stall": "30 s"}},"#))
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.contains("is not a duration") })
    }

    @Test func retryDelaysMustBeOrdered() {
        let lines = M.problems(M.manifest(jobs: M.download("a"), extra: #""defaults": {"retry": {"initialDelay": "1m", "maxDelay": "5s"}},"#))
        #expect(lines.contains { $0.contains("defaults.retry.maxDelay: maxDelay (5s) is shorter than initialDelay (1m)") })
    }

    @Test func aDataURLNeedsAFileName() {
        let lines = M.problems(M.manifest(jobs: M.download("a", "data:,hello")))
        #expect(lines.contains { $0.contains("jobs[0].download.to: a data: URL has no file name") })
    }

    /// One mistake, one error: an empty "to" is reported as empty, whatever the URL.
    @Test func anEmptyToWithADataURLIsOneError() {
        let lines = M.problems(M.manifest(jobs: M.download("a", "data:,hello", to: "")))
        #expect(lines.count == 1)
        #expect(lines.first?.contains("jobs[0].download.to: must not be empty") == true)
    }

    /// Found when the manifest is read, at its JSON path, not as "the data: URL is
    /// malformed" once the run got to it.
    @Test func aDataURLThatCannotBeDecodedIsAManifestError() {
        let bad = M.problems(M.manifest(jobs: M.download("a", "data:;base64,aGk!aGk=", to: "a.bin") + "," + M.download("b", "data:text/plain", to: "b.txt")))
        #expect(bad.contains { $0.hasSuffix("jobs[0].download.url: its content is marked ;base64 but holds \"!\" at position 4, which base64 does not use") }, "\(bad)")
        #expect(bad.contains { $0.hasSuffix("jobs[1].download.url: a data: URL needs a comma before its content (data:[type][;base64],content)") }, "\(bad)")
        #expect(throws: Never.self) { try M.plan(M.manifest(jobs: M.download("c", "data:;base64,aGk%3D", to: "c.txt"))) }
    }

    @Test func anUploadNeedsExactlyOneBody() {
        let both = M.problems(M.manifest(jobs: #"{"id": "u", "upload": {"url": "https://x.org/u", "from": "a", "multipart": {"fields": {"a": "b"}}}}"#))
        #expect(both.contains { $0.contains("either \"from\" (a raw body) or \"multipart\", not both") })
        let none = M.problems(M.manifest(jobs: #"{"id": "u", "upload": {"url": "https://x.org/u"}}"#))
        #expect(none.contains { $0.contains("an upload needs \"from\"") })
    }

    @Test func anUploadIntoAFolderURLTakesTheSourcesFileNameUnlessItIsAnHTTPPost() throws {
        func target(_ url: String, from: String = "build/my app?.tar", method: String = "PUT") throws -> String {
            let job = #"{"id": "u", "upload": {"url": "\#(url)", "from": "\#(from)", "method": "\#(method)"}}"#
            guard case .upload(let u) = try M.plan(M.manifest(jobs: job)).jobs[0].action else { Issue.record(); return "" }
            return u.url.string
        }
        #expect(try target("sftp://h/srv/drop/") == "sftp://h/srv/drop/my%20app%3F.tar")
        #expect(try target("ftp://h/pub/") == "ftp://h/pub/my%20app%3F.tar")
        #expect(try target("https://h/files/?sig=abc") == "https://h/files/my%20app%3F.tar?sig=abc")
        #expect(try target("https://h/api/", method: "POST") == "https://h/api/")
        #expect(try target("sftp://h/srv/drop/x.tar") == "sftp://h/srv/drop/x.tar")
    }

    @Test func anArchiveFormatIsInferredOrRequired() throws {
        let plan = try M.plan(M.manifest(jobs: M.download("a", to: "a.bin") + #", {"id": "z", "archive": {"from": ["a"], "to": "z.tgz"}}"#))
        guard case .archive(let a) = plan.jobs[1].action else { Issue.record(); return }
        #expect(a.format == .tarGz)
        let lines = M.problems(M.manifest(jobs: M.download("a", to: "a.bin") + #", {"id": "z", "archive": {"from": ["a"], "to": "z.rar"}}"#))
        #expect(lines.contains { $0.contains("cannot tell the format from \"z.rar\"") })
    }

    @Test func oversizedManifestsAreRefusedBeforeReading() throws {
        let path = "/tmp/xferbatch-big-\(UInt32.random(in: 0...UInt32.max)).json"
        let fd = fopen(path, "w")
        defer { unlink(path) }
        #expect(fd != nil)
        // A sparse 50 MB file: the size check must refuse it without reading it.
        fseek(fd, 50_000_000, SEEK_SET)
        fputc(0x7D, fd)
        fclose(fd)
        do {
            _ = try ManifestLoader(environment: [:]).load(path: path)
            Issue.record("accepted a 50 MB manifest")
        } catch {
            #expect(error.lines.count == 1)
            #expect(error.lines[0].contains("the manifest is 47.7 MiB; the limit is 32 MiB"))
        }
    }

    @Test func aManifestFilesFolderIsWhereItsRelativePathsResolve() throws {
        let t = try TemporaryFolder("manifest-folder")
        try FileManager.default.createDirectory(atPath: t.path + "/sub", withIntermediateDirectories: true)
        let text = M.manifest(jobs: M.download("a", to: "a.bin"))
        #expect(FileManager.default.createFile(atPath: t.path + "/sub/m.json", contents: Data(text.utf8)))
        let loaded = try ManifestLoader(environment: [:]).load(path: t.path + "/sub/../sub/./m.json")
        #expect(loaded.directory == t.path + "/sub")
        let plan = try Planner(environment: [:]).plan(loaded)
        #expect(plan.jobs.first?.destination == t.path + "/sub/a.bin")
    }

    @Test func aMissingFileIsAClearError() {
        do {
            _ = try ManifestLoader(environment: [:]).load(path: "/nonexistent/m.json")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.lines == ["/nonexistent/m.json: cannot read the file: no such file"])
        }
    }
}
