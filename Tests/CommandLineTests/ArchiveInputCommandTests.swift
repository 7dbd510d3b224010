import Foundation
import Synchronization
import Testing
import XferBatch
import XferFixtures

@Suite("xferbatch run: archive inputs")
struct ArchiveInputCommandTests {
    /// `tar` exits 2 on a folder it cannot read; the walk passed over it in silence and the
    /// archive was built without its files. Now `plan` says the job fails, and the run fails
    /// it naming the folder.
    @Test func aFolderUnderAnArchiveInputThatCannotBeReadFailsTheJobAndPlanSaysSo() async throws {
        let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("xferbatch-unreadable-\(UUID().uuidString)")
        let secret = folder.appendingPathComponent("out/d/secret")
        try FileManager.default.createDirectory(at: secret, withIntermediateDirectories: true)
        defer {
            chmod(secret.path, 0o700)
            try? FileManager.default.removeItem(at: folder)
        }
        try Data("a".utf8).write(to: folder.appendingPathComponent("out/d/a.txt"))
        try Data("s".utf8).write(to: secret.appendingPathComponent("s.txt"))
        try #"{"version": 1, "outputDir": "out", "jobs": [{"id": "z", "archive": {"from": ["d"], "to": "d.tar"}}, {"id": "s", "archive": {"from": ["d/secret"], "to": "s.tar"}}]}"#
            .write(to: folder.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        for path in [folder.path, folder.path + "/out", folder.path + "/out/d"] { chmod(path, 0o777) }
        chmod(folder.path + "/m.json", 0o644)
        chmod(secret.path, getuid() == 0 ? 0o700 : 0o000)  // as root: root's folder, which nobody cannot read
        let plan = try await CommandRunner.runUnprivileged(["plan", "m.json"], in: folder)
        #expect(plan.stdout.components(separatedBy: "run: fails: cannot read the folder out/d/secret: Permission denied").count == 3,
                "both the folder's and its parent's archive: \(plan.stdout)\(plan.stderr)")
        let run = try await CommandRunner.runUnprivileged(["run", "m.json"], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("FAILED   z after 1 attempt: EACCES: cannot read the folder \(secret.path): Permission denied"), "\(run.stderr)")
        #expect(run.stderr.contains("FAILED   s after 1 attempt: EACCES: cannot read the folder \(secret.path): Permission denied"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out/d.tar"))
    }
}
