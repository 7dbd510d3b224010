import Foundation
import Testing
@testable import XferCurl

/// What libcurl is given to read for known_hosts (see `KnownHostsFile`).
@Suite("Known hosts handed to libcurl")
struct KnownHostsFileTests {
    @Test(arguments: [("h ssh-rsa AAAA", "ssh-rsa"), ("@cert-authority *.example.org ssh-rsa AAAA", "ssh-rsa"),
                      ("h ssh-ed25519 AAAA", "ssh-ed25519"), ("# h ssh-rsa AAAA", nil), ("", nil),
                      ("|1|salt=|hash= ssh-rsa AAAA comment", "ssh-rsa")])
    func aLinesKeyTypeIsItsSecondFieldOrThirdAfterAMarker(line: String, type: String?) {
        #expect(KnownHostsFile.keyType(Substring(line)).map(String.init) == type)
    }

    @Test func rsaLinesMoveAfterTheOthersInACopyAndTheFileStaysAsItWas() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kh-\(UUID().uuidString)").path
        defer { unlink(path) }
        let text = "# scanned\n[h]:2222 ssh-rsa R1\n[h]:2222 ssh-ed25519 E1\nother ssh-rsa R2\nother ecdsa-sha2-nistp256 C1\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let handed = KnownHostsFile(path)
        #expect(handed.path.hasPrefix("/proc/self/fd/"))
        #expect(handed.holdsRSAKeys)
        #expect(try String(contentsOfFile: handed.path, encoding: .utf8)
                == "# scanned\n[h]:2222 ssh-ed25519 E1\nother ecdsa-sha2-nistp256 C1\n\n[h]:2222 ssh-rsa R1\nother ssh-rsa R2")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        // Already in order: libcurl reads the file itself.
        try "h ssh-ed25519 E1\nh ssh-rsa R1\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(KnownHostsFile(path).path == path)
    }

    @Test func aFileWithWindowsLineEndsIsReorderedToo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kh-\(UUID().uuidString)").path
        defer { unlink(path) }
        try "h ssh-rsa R1\r\nh ssh-ed25519 E1\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        let handed = KnownHostsFile(path)
        #expect(handed.path.hasPrefix("/proc/self/fd/"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: handed.path)) == Data("h ssh-ed25519 E1\r\n\nh ssh-rsa R1\r".utf8))
    }
}
