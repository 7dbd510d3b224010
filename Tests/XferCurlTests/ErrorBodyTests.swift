import Testing
@testable import XferCurl
import XferFixtures

/// A failed response's body says what the status does not (a token without the scope, an
/// expired pre-signed URL): the failure message quotes it, on one line, without secrets.
@Suite("Engine: what a failed response says")
struct ErrorBodyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var status: Int
        var contentType: String
        var body: String
        /// What follows "the server answered N" (nil: nothing).
        var said: String?
        var testDescription: String { contentType }
    }

    @Test(arguments: [
        Case(status: 401, contentType: "application/json; charset=utf-8",
             body: "{\n  \"message\": \"Bad credentials\",\n  \"documentation_url\": \"https://docs.github.com/rest\"\n}\n",
             said: #"{ "message": "Bad credentials", "documentation_url": "https://docs.github.com/rest" }"#),
        Case(status: 403, contentType: "application/xml",
             body: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>",
             said: "AccessDenied Request has expired"),
        Case(status: 403, contentType: "text/html",
             body: "<html><head><title>Access denied | used Cloudflare to restrict access</title><style>p{}</style></head><body><p>…</p></body></html>",
             said: "Access denied | used Cloudflare to restrict access"),
        Case(status: 404, contentType: "text/html", body: "<html><head><title>404 Not Found</title></head><body>nginx</body></html>", said: nil),
        Case(status: 500, contentType: "application/octet-stream", body: "PK\u{3}\u{4}", said: nil),
        Case(status: 503, contentType: "text/plain", body: String(repeating: "busy ", count: 100),
             said: String(repeating: "busy ", count: 40).prefix(199) + "…"),
        // Escape sequences (ESC, and CSI as a C1 control) and a bidi override never reach a log.
        Case(status: 500, contentType: "text/plain", body: "down\u{1B}[2J for \u{9B}31mrepairs\u{202E}txt.exe",
             said: "down [2J for 31mrepairs txt.exe"),
    ])
    func aFailedResponsesBodyIsQuotedOnOneLine(_ c: Case) async throws {
        try await EngineTesting.with { t in
            t.server.addFile("x.bin", [1])
            t.server.script("/files/x.bin", [.answer(c.status, contentType: c.contentType, body: Array(c.body.utf8))])
            let failure = try #require(try await t.download("/files/x.bin").result.failure)
            #expect(failure.httpStatus == c.status)
            #expect(failure.message == "the server answered \(c.status)" + (c.said.map { ": \($0)" } ?? ""))
        }
    }

    /// A server that echoes the request (a debugging endpoint, a verbose gateway) must not
    /// put the token, the password or a pre-signed URL's signature into a CI log.
    @Test func credentialsAndSignaturesAServerEchoesAreScrubbed() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("e.bin", [1])
            let echo = """
                GET /files/e.bin?X-Amz-Signature=0a1b2c3d4e5f6a7b&X-Amz-Expires=3600
                Authorization: Bearer tok-3f9a1c77
                X-Api-Key: key-77aa01
                Referer: https://deploy:hunter22@example.org/path?session=abcdef0123456789
                """
            t.server.script("/files/e.bin", [.answer(400, contentType: "text/plain", body: Array(echo.utf8))])
            let (result, _) = try await t.download("/files/e.bin?X-Amz-Signature=0a1b2c3d4e5f6a7b&X-Amz-Expires=3600") {
                $0.auth = .bearer(token: "tok-3f9a1c77")
                $0.headers = [("X-Api-Key", "key-77aa01")]
                $0.originBoundHeaders = ["x-api-key"]
            }
            let message = try #require(result.failure?.message)
            #expect(message == "the server answered 400: GET /files/e.bin?X-Amz-Signature=***&X-Amz-Expires=3600 "
                + "Authorization: Bearer *** X-Api-Key: *** Referer: https://example.org/path")
            for secret in ["tok-3f9a1c77", "key-77aa01", "0a1b2c3d4e5f6a7b", "hunter22", "abcdef0123456789"] {
                #expect(!message.contains(secret))
            }
        }
    }

    /// Text the URL took from a secret variable (a webhook's token in its path) is
    /// scrubbed from a server's echo like any other credential.
    @Test func aSecretInTheURLsPathThatAServerEchoesIsScrubbed() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("hook-T0B1C2D3E4", [1])
            t.server.script("/files/hook-T0B1C2D3E4", [.answer(404, contentType: "text/plain", body: Array("no webhook hook-T0B1C2D3E4 here".utf8))])
            let (result, _) = try await t.download("/files/hook-T0B1C2D3E4") { $0.secretTexts = ["T0B1C2D3E4"] }
            #expect(result.failure?.message == "the server answered 404: no webhook hook-*** here")
        }
    }

    /// A secret is found by its bytes: as characters, one followed by a combining mark or
    /// a joiner, or after a prepended mark, was no match and was quoted.
    @Test func aSecretNextToAMarkThatJoinsItsCharactersIsScrubbedToo() {
        let echo = "{\"token\": \"tok123\u{0301}\"} tok123\u{200D}x \u{0600}tok123 tok123"
        #expect(ErrorBodyExcerpt.scrubbed(echo, secrets: ["tok123"]) == "{\"token\": \"***\u{0301}\"} ***\u{200D}x \u{0600}*** ***")
    }

    /// Basic credentials travel base64-encoded, and those from `.netrc` are not known to
    /// the request at all: an echoed `Authorization` header is scrubbed either way.
    @Test(arguments: [TransferRequest.Auth.basic(user: "deploy", password: "hunter22"), .netrc(file: nil)])
    func anEchoedAuthorizationHeaderIsScrubbedHoweverItsCredentialsWereGiven(_ auth: TransferRequest.Auth) async throws {
        try await EngineTesting.with { t in
            t.server.addFile("b.bin", [1])
            // "deploy:hunter22", as a Basic header carries it.
            let echo = #"{"error": "denied", "authorization": "Basic ZGVwbG95Omh1bnRlcjIy", "user": "deploy"}"#
            t.server.script("/files/b.bin", [.answer(403, contentType: "application/json", body: Array(echo.utf8))])
            let (result, _) = try await t.download("/files/b.bin") { $0.auth = auth }
            let message = try #require(result.failure?.message)
            #expect(message.hasPrefix(#"the server answered 403: {"error": "denied", "authorization": "Basic ***", "user": "#))
            #expect(!message.contains("ZGVwbG95Omh1bnRlcjIy"))
        }
    }

    /// The word after `Basic` or `Bearer` is scrubbed even when a mark joins the space
    /// before it: split by `Character`, that space was no space.
    @Test func theWordAfterBearerIsScrubbedWhateverFollowsTheSpace() {
        #expect(ErrorBodyExcerpt.scrubbed("Authorization: Bearer \u{0301}c2VjcmV0, next", secrets: []) == "Authorization: Bearer ***, next")
        #expect(ErrorBodyExcerpt.scrubbed("\"basic \u{200D}ZGVwbG95\"", secrets: []) == "\"basic ***\"")
    }

    /// A password of three characters cannot be scrubbed without mangling the words around
    /// it, and might hide in them: nothing of the body is quoted then.
    @Test func aBodyIsNotQuotedWhenACredentialIsTooShortToScrub() async throws {
        try await EngineTesting.with { t in
            t.server.addFile("s.bin", [1])
            t.server.script("/files/s.bin", [.answer(401, contentType: "text/plain", body: Array("user ops, password abc: refused".utf8))])
            let (result, _) = try await t.download("/files/s.bin") { $0.auth = .basic(user: "ops-user", password: "abc") }
            #expect(result.failure?.message == "the server answered 401")
        }
    }
}
