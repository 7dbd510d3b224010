import Testing
@testable import XferCurl

/// How a transfer names its URL's scheme, which decides the options it gets (SSH for
/// `sftp`, pausing for all but `file`) and where a redirect may lead.
@Suite("A URL's scheme")
struct SchemeTests {
    @Test(arguments: [
        ("http://h/x", "http"), ("HTTPS://h/x", "https"), ("SFtp://h/x", "sftp"), ("file:///x", "file"),
        ("data:,x", "data"), ("no-colon", "no-colon"), ("", ""), (":x", ""),
    ])
    func isTheTextBeforeTheFirstColonInLowerCase(url: String, scheme: String) {
        #expect(EasyTransfer.scheme(of: url) == scheme)
    }

    @Test func onlyASCIILettersAreLowered() {
        // A byte outside ASCII is kept as it is: no such scheme exists either way.
        #expect(EasyTransfer.scheme(of: "HTTPÉ://h") == "httpÉ")
        #expect(EasyTransfer.scheme(of: "A[Z@://h") == "a[z@")
    }
}
