import Testing
@testable import XferBatch

@Suite("Transfer URLs")
struct TransferURLTests {
    @Test func encodesSpacesAndNonASCIIOnce() throws {
        let url = try TransferURL(parsing: "https://example.org/static/功夫 熊猫.png?q=a b")
        #expect(url.string == "https://example.org/static/%E5%8A%9F%E5%A4%AB%20%E7%86%8A%E7%8C%AB.png?q=a%20b")
    }

    @Test func neverDoubleEncodes() throws {
        let once = try TransferURL(parsing: "https://example.org/a%20b/%E5%8A%9F")
        #expect(once.string == "https://example.org/a%20b/%E5%8A%9F")
        let again = try TransferURL(parsing: once.string)
        #expect(again.string == once.string)
    }

    @Test func encodesAStrayPercentSign() throws {
        #expect(try TransferURL(parsing: "https://x.org/100%/a").string == "https://x.org/100%25/a")
    }

    @Test func lowerCasesSchemeAndHostButNotThePath() throws {
        let url = try TransferURL(parsing: "HTTPS://Example.ORG:8443/Path/File")
        #expect(url.string == "https://example.org:8443/Path/File")
        #expect(url.host == "example.org")
        #expect(url.port == 8443)
        #expect(url.hostKey == "example.org:8443")
    }

    @Test func fileAndDataURLsShareTheEndpointNamedLocal() throws {
        let data = try TransferURL(parsing: "data:,x"), file = try TransferURL(parsing: "file:///tmp/x")
        #expect(data.endpoint == file.endpoint)
        #expect(data.hostKey == "local")
        #expect(try TransferURL(parsing: "https://a.org/x").endpoint != TransferURL(parsing: "https://a.org:8443/x").endpoint)
    }

    @Test(arguments: ["http", "https", "ftp", "ftps", "sftp", "file"])
    func acceptsSupportedSchemes(scheme: String) throws {
        #expect(try TransferURL(parsing: "\(scheme)://host/path").scheme == scheme)
    }

    @Test func refusesOtherSchemesAndCredentials() {
        #expect(throws: TransferURL.Problem.unsupportedScheme("gopher")) { try TransferURL(parsing: "gopher://x/y") }
        #expect(throws: TransferURL.Problem.credentials) { try TransferURL(parsing: "ftp://user:pw@x/y") }
        #expect(throws: TransferURL.Problem.missingScheme) { try TransferURL(parsing: "example.org/file") }
        #expect(throws: TransferURL.Problem.missingHost) { try TransferURL(parsing: "https:///file") }
    }

    /// A host that is no host, or a port out of range, is refused where the manifest
    /// says it, not by libcurl once the run is under way: `http://[::1/a` parsed as host
    /// `[:` on port 1, and a port of 99999 was reported as a missing host.
    @Test(arguments: [("http://[::1/a", "an IP literal needs its closing ] and holds only hex digits, : and ."),
                      ("http://exa mple.org/a", "the host holds byte 0x20, which no host name has"),
                      ("http://a<b/c", "the host holds \"<\", which no host name has"),
                      ("http://x]y/a", "the host holds \"]\", which no host name has")])
    func aHostThatIsNoHostIsRefused(url: String, why: String) {
        #expect(throws: TransferURL.Problem.badHost(why)) { try TransferURL(parsing: url) }
    }

    @Test func everyByteNoHostNameHasIsRefused() {
        for byte in Array("\"<>\\^`{|} ".utf8) + [0x00, 0x09, 0x7F] {
            let host = "a" + String(decoding: [byte], as: UTF8.self) + "b"
            let shown = byte >= 0x21 && byte < 0x7F ? "\"\(Character(Unicode.Scalar(byte)))\"" : String(format: "byte 0x%02X", byte)
            #expect(throws: TransferURL.Problem.badHost("the host holds \(shown), which no host name has")) {
                try TransferURL(parsing: "http://\(host)/x")
            }
        }
    }

    @Test func aPortOutOfRangeIsRefusedAsSuch() throws {
        #expect(throws: TransferURL.Problem.badPort) { try TransferURL(parsing: "http://h:99999/a") }
        #expect(throws: TransferURL.Problem.badPort) { try TransferURL(parsing: "http://h:0/a") }
        #expect(try TransferURL(parsing: "http://h:65535/a").port == 65535)
    }

    @Test(arguments: [("http://[::1]:8080/a", "::1"), ("http://[fe80::1%25eth0]/a", "fe80::1%25eth0"), ("https://bücher.example/a", "bücher.example"),
                      ("http://my_host.local/a", "my_host.local"), ("http://a-b.c_d~e%41!$&'()*+,;=f.example/x", "a-b.c_d~e%41!$&'()*+,;=f.example")])
    func hostNamesAndIPLiteralsAreAccepted(url: String, host: String) throws {
        #expect(try TransferURL(parsing: url).host == host)
    }

    /// `sftp://deploy@host/…` names the SSH user, as with `ssh`; an http `user@` is
    /// refused because it is usually a token (`https://TOKEN@github.com/…`).
    @Test func anSFTPURLMayNameItsUserAndKeepsItsCase() throws {
        let url = try TransferURL(parsing: "SFTP://Deploy@Backup.Example.ORG:2222/srv/f")
        #expect(url.string == "sftp://Deploy@backup.example.org:2222/srv/f")
        #expect(url.user == "Deploy")
        #expect(url.host == "backup.example.org")
        #expect(url.hostKey == "backup.example.org:2222")
        #expect(try TransferURL(parsing: "sftp://deploy@h/f").string == "sftp://deploy@h/f")
        #expect(try TransferURL(parsing: "sftp://h/f").user == nil)
        for refused in ["sftp://deploy:pw@h/f", "sftp://@h/f", "https://token@h/f", "ftp://anonymous@h/f"] {
            #expect(throws: TransferURL.Problem.credentials, "\(refused)") { try TransferURL(parsing: refused) }
        }
    }

    @Test func redactsSecretLookingQueryValues() throws {
        let url = try TransferURL(parsing: "https://blob.example.org/a.zip?X-Amz-Signature=abc&X-Amz-Credential=k&expires=10&token=t")
        #expect(url.redacted == "https://blob.example.org/a.zip?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&expires=10&token=REDACTED")
        #expect(!url.description.contains("abc"))
    }

    @Test func redactsTheContentOfDataURLs() throws {
        #expect(try TransferURL(parsing: "data:text/plain;base64,aGVsbG8=").redacted == "data:text/plain;base64,…")
    }

    @Test func anEmptyDataURLIsShownWhole() throws {
        #expect(try TransferURL(parsing: "data:,").redacted == "data:,")
    }

    @Test func aFileNameAppendedToAFolderURLIsOneEncodedSegmentBeforeTheQuery() throws {
        let folder = try TransferURL(parsing: "https://x.org/in/?token=t#f")
        #expect(folder.namesFolder)
        let url = folder.appending(fileName: "a/b%c d#功")
        #expect(url.string == "https://x.org/in/a%2Fb%25c%20d%23%E5%8A%9F?token=t#f")
        #expect(!url.namesFolder)
        #expect(url.lastPathSegment == "a/b%c d#功")
        #expect(try !TransferURL(parsing: "https://x.org/in?dir=/").namesFolder)
    }

    @Test func theLastPathSegmentIsPercentDecoded() throws {
        #expect(try TransferURL(parsing: "https://x.org/dir/%E5%8A%9F.png?x=1").lastPathSegment == "功.png")
        #expect(try TransferURL(parsing: "https://x.org/").lastPathSegment == nil)
    }
}
