import Foundation
import Testing
import XferFixtures

/// The `xferbatch-fixture` program as `scripts/demo.sh` starts it, run as `nobody` when the
/// tests run as root: what a user without root meets.
final class FixtureProgram: Sendable {
    let program: RunningProgram
    /// `http://127.0.0.1:PORT`, from the line the program prints once it listens.
    let baseURL: String

    /// Starts the program serving `root` under `/files/`, from a copy in `scratch` (which
    /// `nobody` can run wherever the build folder is). A copy just written can be refused
    /// for a moment with "Text file busy" (see `CommandRunner.runUnprivileged`): tried again.
    init(serving root: String, scratch: URL) throws {
        let built = CommandRunner.binary.deletingLastPathComponent().appendingPathComponent("xferbatch-fixture")
        try #require(FileManager.default.isExecutableFile(atPath: built.path), "build it first: swift build --product xferbatch-fixture")
        let copy = scratch.appendingPathComponent("xferbatch-fixture").path
        try FileManager.default.copyItem(atPath: built.path, toPath: copy)
        let command = (getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []) + [copy, "--root", root]
        var tries = 0
        while true {
            tries += 1
            let program = try RunningProgram(command[0], Array(command.dropFirst()))
            // The program prints one line once it listens, then nothing until it is killed.
            if let line = program.firstLine(), line.hasPrefix("listening on ") {
                self.program = program
                self.baseURL = String(line.dropFirst("listening on ".count))
                return
            }
            let (_, _, stderr) = program.finish(within: .seconds(10))
            let error = String(decoding: stderr, as: UTF8.self)
            guard error.contains("Text file busy"), tries < 20 else {
                throw FixtureProgramError(description: "xferbatch-fixture did not start: \(error)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func stop() {
        program.signal(SIGKILL)
        _ = program.wait(upTo: .seconds(10))
    }

    struct FixtureProgramError: Error, CustomStringConvertible {
        var description: String
    }
}
