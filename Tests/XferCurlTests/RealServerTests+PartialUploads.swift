import Foundation
import Testing
import XferFixtures
import XferCurl

/// Uploads stored under a temporary name and renamed once whole, against vsftpd, OpenSSH's
/// SFTP server and the local file system: the final name holds the old file or the whole
/// new one, never part of it.
extension RealServerTests {
    func upload(_ source: String, to url: String, _ settings: (inout TransferRequest) -> Void) -> TransferRequest {
        var r = TransferRequest(url: url, method: .put, body: .file(path: source, contentType: nil))
        settings(&r)
        r.options.partialUploadSuffix = ".xferpart"
        return r
    }

    /// An upload cut off after a part was stored (a total timeout under a bandwidth cap)
    /// leaves the old file whole under its name and the part beside it; the next upload
    /// replaces the old file (SFTP: removed first) and leaves no part behind.
    @Test(arguments: ["ftp", "sftp"])
    func anFTPOrSFTPUploadReplacesTheFileOnlyOnceWhole(scheme: String) async throws {
        let old = Array("the old file, whole\n".utf8)
        let content = EngineTesting.bytes(1_000_000)
        try await withRemoteFile(scheme, "report.bin", old) { engine, remote, scratch in
            let source = scratch + ".new"
            _ = FileManager.default.createFile(atPath: source, contents: Data(content))
            var cut = upload(source, to: remote.url, remote.settings)
            cut.options.bandwidth = SharedBandwidth(bytesPerSecond: 400_000)
            cut.options.totalTimeout = .seconds(1)
            await #expect { _ = try await engine.perform(cut, progress: TransferProgress()) } throws: {
                ($0 as? TransferError)?.code == "CURLE_OPERATION_TIMEDOUT"
            }
            let kept = read(remote.path)  // compared outside #expect: its diff of a long array takes minutes
            #expect(kept.count == old.count && kept == old, "the final name holds \(kept.count) bytes")
            let part = read(remote.path + ".xferpart").count
            #expect(part > 0 && part < content.count, "\(part) bytes stored as the part")

            _ = try await engine.perform(upload(source, to: remote.url, remote.settings), progress: TransferProgress())
            let whole = read(remote.path) == content
            #expect(whole)
            #expect(!FileManager.default.fileExists(atPath: remote.path + ".xferpart"))
        }
    }

    /// Missing folders are made for the stored name, and the rename happens in them (FTP:
    /// the folder libcurl changed into; SFTP: full paths). An upload cut off there (a total
    /// timeout under a cap) leaves only the part; the next one, only the whole file.
    @Test(arguments: ["ftp", "sftp"])
    func anUploadIntoNewFoldersIsRenamedThere(scheme: String) async throws {
        try await withRemoteFile(scheme, "seed.bin", Array("seed".utf8)) { engine, remote, scratch in
            let content = EngineTesting.bytes(1_000_000)
            let source = scratch + ".new"
            _ = FileManager.default.createFile(atPath: source, contents: Data(content))
            let target = DatedRemoteFile.location(of: "new/dir/up.bin", scheme: scheme, on: remote.server)
            let folder = (target.path as NSString).deletingLastPathComponent
            var cut = upload(source, to: target.url, remote.settings)
            cut.options.createMissingDirectories = true
            cut.options.bandwidth = SharedBandwidth(bytesPerSecond: 400_000)
            cut.options.totalTimeout = .seconds(1)
            await #expect(throws: TransferError.self) { _ = try await engine.perform(cut, progress: TransferProgress()) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["up.bin.xferpart"])

            var request = upload(source, to: target.url, remote.settings)
            request.options.createMissingDirectories = true
            _ = try await engine.perform(request, progress: TransferProgress())
            let whole = read(target.path) == content  // compared outside #expect: its diff of a long array takes minutes
            #expect(whole)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["up.bin"])
        }
    }

    /// A rename the server refuses (the name is a folder with files in it) fails the upload,
    /// saying where the file was stored.
    @Test(arguments: ["ftp", "sftp"])
    func aRenameTheServerRefusesFailsTheUploadNamingThePart(scheme: String) async throws {
        try await withRemoteFile(scheme, "drop/inside.txt", Array("x".utf8)) { engine, remote, _ in
            let folder = (remote.path as NSString).deletingLastPathComponent
            let url = String(remote.url.dropLast("/inside.txt".count))
            let source = remote.server.path("source.txt")
            _ = FileManager.default.createFile(atPath: source, contents: Data("new".utf8))
            await #expect { _ = try await engine.perform(upload(source, to: url, remote.settings), progress: TransferProgress()) } throws: { error in
                guard let e = error as? TransferError else { return false }
                return e.code == "CURLE_QUOTE_ERROR" && e.message.hasPrefix("the file was stored as \(url).xferpart, but the server refused to give it its final name")
            }
            #expect(read(folder + ".xferpart") == Array("new".utf8))
            #expect(read(folder + "/inside.txt") == Array("x".utf8))
        }
    }

    /// `file:`: copied beside the target and renamed onto it, so a link at the final name is
    /// replaced, not written through (in place, libcurl writes into the file it leads to).
    @Test(arguments: [true, false])
    func aFileUploadIsRenamedOntoItsNameUnlessInPlace(renamed: Bool) async throws {
        try await withEngine { engine, scratch in
            let (source, other, target) = (scratch.appendingPathComponent("source").path, scratch.appendingPathComponent("other").path,
                                           scratch.appendingPathComponent("target").path)
            _ = FileManager.default.createFile(atPath: source, contents: Data("new".utf8))
            _ = FileManager.default.createFile(atPath: other, contents: Data("other".utf8))
            try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: other)
            var request = upload(source, to: "file://" + target) { _ in }
            if !renamed { request.options.partialUploadSuffix = nil }
            let outcome = try await engine.perform(request, progress: TransferProgress())
            #expect(outcome.effectiveURL == "file://" + target)
            #expect(read(target) == Array("new".utf8))
            #expect(read(other) == Array((renamed ? "other" : "new").utf8))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: target)) == (renamed ? nil : other))
            #expect(!FileManager.default.fileExists(atPath: target + ".xferpart"))
        }
    }
}
