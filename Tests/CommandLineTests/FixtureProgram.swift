import Foundation
import Testing

/// The `xferbatch-fixture` program as `scripts/demo.sh` starts it, run as `nobody` when the
/// tests run as root: what a user without root meets.
final class FixtureProgram: @unchecked Sendable {
    let process: Process
    /// `http://127.0.0.1:PORT`, from the line the program prints once it listens.
    let baseURL: String

    /// Starts the program serving `root` under `/files/`, from a copy in `scratch` (which
    /// `nobody` can run wherever the build folder is). A copy just written can be refused
    /// for a moment with "Text file busy" (see `CommandRunner.runUnprivileged`): tried again.
    init(serving root: String, scratch: URL) throws {
        let program = CommandRunner.binary.deletingLastPathComponent().appendingPathComponent("xferbatch-fixture")
        try #require(FileManager.default.isExecutableFile(atPath: program.path), "build it first: swift build --product xferbatch-fixture")
        let copy = scratch.appendingPathComponent("xferbatch-fixture")
        try FileManager.default.copyItem(at: program, to: copy)
        var tries = 0
        while true {
            tries += 1
            let process = Process()
            let arguments = ["--root", root]
            if getuid() == 0 {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + arguments
            } else {
                process.executableURL = copy
                process.arguments = arguments
            }
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            // The program prints one line and then nothing until it is killed.
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line += chunk
            }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("listening on ") {
                self.process = process
                self.baseURL = text.dropFirst("listening on ".count).trimmingCharacters(in: .whitespacesAndNewlines)
                return
            }
            process.waitUntilExit()
            let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            guard error.contains("Text file busy"), tries < 20 else {
                throw FixtureProgramError(description: "xferbatch-fixture did not start: \(text)\(error)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    struct FixtureProgramError: Error, CustomStringConvertible {
        var description: String
    }
}
