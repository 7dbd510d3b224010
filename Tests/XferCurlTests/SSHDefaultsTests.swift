import Foundation
import Testing
import XferCurl
import XferFixtures

@Suite("Engine: SSH defaults")
struct SSHDefaultsTests {
    /// libcurl alone looks for id_rsa and id_dsa only: the id_ed25519 key `ssh-keygen`
    /// makes by default was never tried.
    @Test func theDefaultKeyIsTheFirstOfSSHsUsualKeysThatExists() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-home-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home + "/.ssh", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(SSHDefaults.privateKey(home: home) == nil)
        #expect(FileManager.default.createFile(atPath: home + "/.ssh/id_ed25519", contents: Data("k".utf8)))
        #expect(SSHDefaults.privateKey(home: home) == home + "/.ssh/id_ed25519")
        #expect(FileManager.default.createFile(atPath: home + "/.ssh/id_rsa", contents: Data("k".utf8)))
        #expect(SSHDefaults.privateKey(home: home) == home + "/.ssh/id_rsa", "ssh tries id_rsa first")
    }

    @Test func theDefaultUserIsTheLocalLoginName() throws {
        let name = ChildProcess.run("/usr/bin/id", ["-un"]).text
        #expect(SSHDefaults.loginName() == name.trimmingCharacters(in: .whitespacesAndNewlines), "as `id -un` names it")
    }
}
