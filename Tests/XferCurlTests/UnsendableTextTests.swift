import Foundation
import Testing
import XferCurl
import XferFixtures

/// The engine sends no line libcurl would cut short: a header value or an FTP login with a
/// line break is refused before anything is sent, whatever the caller checked before.
@Suite("Engine: text libcurl would send as it is")
struct UnsendableTextTests {
    @Test(arguments: ["a\r\nX-Injected: 1", "token\n", "a\u{7F}b"])
    func aHeaderValueWithALineBreakIsNeverSent(value: String) async throws {
        try await EngineTesting.with { t in
            t.server.addFile("a", [1])
            let (result, bytes) = try await t.download("/files/a", request: { $0.headers = [("X-A", value)] })
            #expect(result.failure?.code == TransferError.unsendableText)
            #expect(result.failure?.message == "the X-A header holds a line break or another control character, which would end it early; not sent")
            #expect(result.failure?.message.contains(value) == false)
            #expect(t.server.requests(to: "/files/a").isEmpty)
            #expect(bytes.isEmpty)
        }
    }

    /// A tab is a header value's own whitespace, and text beyond ASCII goes as UTF-8.
    @Test func aHeaderValueWithATabOrTextBeyondASCIIIsSent() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("a", [1])
            let (result, _) = try await t.download("/files/a", request: { $0.headers = [("X-A", "a\tcafé")] })
            #expect(result.success != nil)
            #expect(t.server.requests(to: "/files/a").first?.header("X-A") == "a\tcafé")
        }
    }

    /// `PASS pw` and then, after the line break, an FTP command of the password's own.
    @Test func anFTPLoginWithALineBreakIsNeverSent() async throws {
        try await EngineTesting.with { t in
            let (file, fd) = try t.openFile("ftp-\(UUID().uuidString)")
            defer { close(fd) }
            let port = URL(string: t.server.baseURL)?.port ?? 0
            let request = TransferRequest(url: "ftp://127.0.0.1:\(port)/a", auth: .basic(user: "me", password: "pw\r\nDELE important"),
                                          destination: .file(descriptor: fd, offset: 0),
                                          options: TransferRequest.Options(totalTimeout: .seconds(10)))  // the fixture speaks no FTP
            do {
                _ = try await t.engine.perform(request, progress: TransferProgress())
                Issue.record("the login was sent")
            } catch let error as TransferError {
                #expect(error.code == TransferError.unsendableText)
                #expect(error.message == "the FTP login holds a line break or another control character, which would end its line early; not sent")
            } catch {
                Issue.record("\(error)")
            }
            #expect(t.server.requests.isEmpty, "no connection was made")
            #expect(t.read(file).isEmpty)
        }
    }
}
