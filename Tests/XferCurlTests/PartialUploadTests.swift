import Testing
@testable import XferCurl

/// Where an FTP, SFTP or `file:` upload is stored until it is whole, and the commands that
/// give it its final name: names as libcurl decodes them, quoted as its SFTP commands read
/// them.
@Suite("Engine: the names of a partial upload")
struct PartialUploadTests {
    func text(_ commands: [[UInt8]]) -> [String] { commands.map { String(decoding: $0, as: UTF8.self) } }

    @Test func ftpStoresUnderTheSuffixAndRenamesByTheBareNameInItsFolder() throws {
        let plan = try PartialUpload.plan(encodedPath: "/pub/new%20dir/r%C3%A9sum%C3%A9.pdf", scheme: "ftp", suffix: ".xferpart")
        #expect(plan.storedURLPath == "/pub/new%20dir/r%C3%A9sum%C3%A9.pdf.xferpart")
        #expect(text(plan.commands) == ["RNFR résumé.pdf.xferpart", "RNTO résumé.pdf"])
        #expect(plan.localRename == nil)
    }

    @Test func ftpKeepsTheTransferTypeAfterTheStoredName() throws {
        let plan = try PartialUpload.plan(encodedPath: "/pub/a.txt;type=a", scheme: "ftp", suffix: ".xferpart")
        #expect(plan.storedURLPath == "/pub/a.txt.xferpart;type=a")
        #expect(text(plan.commands) == ["RNFR a.txt.xferpart", "RNTO a.txt"])
    }

    /// A line break would end the command and start another (`DELE`, say).
    @Test(arguments: ["/pub/a%0D%0ADELE%20b", "/pub/a%7F"])
    func ftpRefusesANameACommandLineCannotCarry(path: String) {
        #expect(throws: PartialUpload.Problem.self) { try PartialUpload.plan(encodedPath: path, scheme: "ftp", suffix: ".xferpart") }
    }

    /// The final name is removed first, allowed to fail (`*`): OpenSSH's server does not
    /// rename onto an existing file.
    @Test func sftpRemovesTheOldFileThenRenamesByFullQuotedPaths() throws {
        let plan = try PartialUpload.plan(encodedPath: "/srv/in/a%20%22b%22%5Cc.bin", scheme: "sftp", suffix: ".xferpart")
        #expect(plan.storedURLPath == "/srv/in/a%20%22b%22%5Cc.bin.xferpart")
        #expect(text(plan.commands) == [#"*rm "/srv/in/a \"b\"\\c.bin""#,
                                        #"rename "/srv/in/a \"b\"\\c.bin.xferpart" "/srv/in/a \"b\"\\c.bin""#])
    }

    /// libcurl reads `/~/` in a quoted path as written; a relative path is the home folder's.
    @Test func sftpNamesAPathInTheHomeFolderRelatively() throws {
        let plan = try PartialUpload.plan(encodedPath: "/~/up/a.bin", scheme: "sftp", suffix: ".xferpart")
        #expect(text(plan.commands) == [#"*rm "up/a.bin""#, #"rename "up/a.bin.xferpart" "up/a.bin""#])
    }

    @Test func aFileURLIsRenamedByTheEngineWithDecodedPaths() throws {
        let plan = try PartialUpload.plan(encodedPath: "/tmp/out/a%20b.txt", scheme: "file", suffix: ".xferpart")
        #expect(plan.commands.isEmpty)
        #expect(plan.localRename.map { String(decoding: $0.from, as: UTF8.self) } == "/tmp/out/a b.txt.xferpart")
        #expect(plan.localRename.map { String(decoding: $0.to, as: UTF8.self) } == "/tmp/out/a b.txt")
    }

    @Test(arguments: ["ftp", "sftp", "file"])
    func aURLNamingAFolderOrHoldingANullByteIsRefused(scheme: String) {
        for path in ["/pub/", "/pub/a%00b"] {
            #expect(throws: PartialUpload.Problem.self, "\(scheme) \(path)") {
                try PartialUpload.plan(encodedPath: path, scheme: scheme, suffix: ".xferpart")
            }
        }
    }
}
