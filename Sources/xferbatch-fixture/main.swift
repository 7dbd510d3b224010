import Foundation
import XferFixtures

// The fixture server as a program, for the README's quickstart and for trying things by
// hand: `xferbatch-fixture --root DIR [--port N] [--host H]`. Serves DIR under /files/,
// accepts uploads under /uploads/ and /forms/, and prints its port, then runs until killed.
var root: String? = nil
var port = 0
var host = "127.0.0.1"
var args = CommandLine.arguments.dropFirst().makeIterator()
while let arg = args.next() {
    switch arg {
    case "--root": root = args.next()
    case "--port": port = Int(args.next() ?? "") ?? 0
    case "--host": host = args.next() ?? host
    default:
        FileHandle.standardError.write(Data("usage: xferbatch-fixture --root DIR [--port N] [--host H]\n".utf8))
        exit(2)
    }
}
let server = try await FixtureServer.start(host: host, port: port, root: root)
FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
while true { try await Task.sleep(for: .seconds(3600)) }
