import Crypto
import Foundation
import Testing
import XferCurl
import XferFixtures

/// A fixture server, an engine and a scratch folder for one test.
struct EngineTesting {
    let server: FixtureServer
    let engine: TransferEngine
    let folder: URL

    static func start(maxConnectionsPerHost: Int = 0, idleConnections: Int = TransferEngine.defaultIdleConnections) async throws -> EngineTesting {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xferbatch-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return EngineTesting(server: try await FixtureServer.start(),
                             engine: try TransferEngine(maxConnectionsPerHost: maxConnectionsPerHost, idleConnections: idleConnections),
                             folder: folder)
    }

    /// Runs `body` with a fresh server and engine, stopping both afterwards.
    static func with(maxConnectionsPerHost: Int = 0, idleConnections: Int = TransferEngine.defaultIdleConnections,
                     _ body: (EngineTesting) async throws -> Void) async throws {
        let t = try await start(maxConnectionsPerHost: maxConnectionsPerHost, idleConnections: idleConnections)
        do {
            try await body(t)
        } catch {
            await t.stop()
            throw error
        }
        await t.stop()
    }

    func stop() async {
        await engine.shutdown()
        await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    func url(_ path: String) -> String { server.baseURL + path }

    /// Opens (creating) a file in the scratch folder for writing; the caller closes it.
    func openFile(_ name: String, contents: [UInt8] = []) throws -> (path: String, fd: Int32) {
        let path = folder.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents))
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        return (path, fd)
    }

    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = folder.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    func read(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }

    /// Downloads `path` into a new file; returns the outcome or error, and the file's bytes.
    func download(_ path: String, request: (inout TransferRequest) -> Void = { _ in }, existing: [UInt8] = [])
        async throws -> (result: Result<TransferOutcome, TransferError>, bytes: [UInt8]) {
        let (file, fd) = try openFile("download-\(UUID().uuidString)", contents: existing)
        defer { close(fd) }
        var r = TransferRequest(url: url(path), destination: .file(descriptor: fd, offset: Int64(existing.count)))
        request(&r)
        let result: Result<TransferOutcome, TransferError>
        do { result = .success(try await engine.perform(r, progress: TransferProgress())) } catch { result = .failure(error) }
        return (result, read(file))
    }

    /// Copies `content` through a `file:` URL into a new file: libcurl's local copy, which
    /// it cannot pause. Returns the outcome and the copy's bytes.
    func copy(_ content: [UInt8], request: (inout TransferRequest) -> Void = { _ in }) async throws
        -> (outcome: TransferOutcome, bytes: [UInt8]) {
        let source = write("source-\(UUID().uuidString)", content)
        let (file, fd) = try openFile("copy-\(UUID().uuidString)")
        defer { close(fd) }
        var r = TransferRequest(url: "file://" + source, destination: .file(descriptor: fd, offset: 0))
        request(&r)
        let outcome = try await engine.perform(r, progress: TransferProgress())
        return (outcome, read(file))
    }

    /// Downloads `path` into the descriptor `fd` (caller-owned); returns the error, if any.
    func failure(downloading path: String, into fd: Int32) async -> TransferError? {
        do {
            _ = try await engine.perform(TransferRequest(url: url(path), destination: .file(descriptor: fd, offset: 0)),
                                         progress: TransferProgress())
            return nil
        } catch {
            return error
        }
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }

    var success: Success? {
        if case .success(let s) = self { return s }
        return nil
    }
}
