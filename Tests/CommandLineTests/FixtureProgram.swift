import Foundation
import Testing
import XferFixtures

/// The `xferbatch-fixture` program as `scripts/demo.sh` starts it, run as `nobody` when the
/// tests run as root: what a user without root meets.
final class FixtureProgram: Sendable {
    let program: RunningProgram
    /// `http://127.0.0.1:PORT`, from the line the program prints once it listens.
    let baseURL: String

    /// Starts the program serving `root` under `/files/`, as `CommandRunner.unprivileged`
    /// runs a program.
    init(serving root: String, scratch: URL) throws {
        let built = CommandRunner.binary.deletingLastPathComponent().appendingPathComponent("xferbatch-fixture")
        try #require(FileManager.default.isExecutableFile(atPath: built.path), "build it first: swift build --product xferbatch-fixture")
        let command = try CommandRunner.unprivileged(built, in: scratch) + ["--root", root]
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
            let error = String(decoding: program.finish(within: .seconds(10)).stderr, as: UTF8.self)
            guard CommandRunner.isTextFileBusy(error), tries < 20 else {
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
