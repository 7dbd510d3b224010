import Foundation
import Testing

/// Which shared libraries a command loads, as glibc's loader reports them (`LD_DEBUG=files`
/// lists each library it maps and why, on standard error).
@Suite("xferbatch: libraries loaded on demand")
struct LibraryLoadingTests {
    /// libarchive, and the eleven libraries it brings (libxml2 and ICU among them), cost
    /// every command 3.7 ms before `main` when the binary linked it. Now a run that packs
    /// or extracts nothing never maps it; one that packs loads it then.
    @Test func onlyARunWithAnArchiveJobLoadsLibarchive() async throws {
        let scratch = try RunCommandTests.Scratch()
        try #"""
            {"version": 1, "outputDir": "out", "jobs": [{"id": "a", "download": {"url": "data:,hello", "to": "a.txt"}}]}
            """#.write(toFile: scratch.path("plain.json"), atomically: true, encoding: .utf8)
        try #"""
            {"version": 1, "outputDir": "out", "jobs": [
              {"id": "b", "download": {"url": "data:,hello", "to": "b.txt"}},
              {"id": "t", "archive": {"from": ["b"], "to": "b.tar"}}]}
            """#.write(toFile: scratch.path("packing.json"), atomically: true, encoding: .utf8)
        let loaderLog = ["LD_DEBUG": "files"]

        let plain = try await CommandRunner.run(["run", "plain.json", "-q"], environment: loaderLog, in: scratch.folder)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("file=libcurl.so.4 [0];  dynamically loaded by"), "the loader's log is there")
        #expect(!plain.stderr.contains("libarchive"))

        let packing = try await CommandRunner.run(["run", "packing.json", "-q"], environment: loaderLog, in: scratch.folder)
        #expect(packing.status == 0, "\(packing.stderr)")
        #expect(packing.stderr.contains("file=libarchive.so.13 [0];  dynamically loaded by"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/b.tar")))
    }

    /// libcurl and the thirty or so libraries it needs are loaded by the commands that
    /// transfer (`run`, `plan --probe`), on a thread of their own beside the manifest's
    /// reading; a command that only reads a manifest or the state folder maps neither C
    /// library.
    @Test(arguments: [["validate"], ["plan"], ["status"]])
    func aCommandThatTransfersNothingLoadsNoCLibrary(command: [String]) async throws {
        let scratch = try RunCommandTests.Scratch()
        try #"""
            {"version": 1, "outputDir": "out", "jobs": [
              {"id": "b", "download": {"url": "https://example.invalid/b.txt", "to": "b.txt"}},
              {"id": "t", "archive": {"from": ["b"], "to": "b.tar"}}]}
            """#.write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let result = try await CommandRunner.run(command + ["m.json"], environment: ["LD_DEBUG": "files"], in: scratch.folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("file=libc.so.6"), "the loader's log is there")
        #expect(!result.stderr.contains("libcurl"))
        #expect(!result.stderr.contains("libarchive"))
    }

    /// A machine whose libcurl is missing or is not libcurl (here zlib, found first under
    /// its name through `LD_LIBRARY_PATH`): `run` stops before any job, exit 1, saying
    /// which file the loader found and what it lacks; `validate` does not need libcurl.
    @Test func aRunWithoutAUsableLibcurlSaysWhyAndValidateStillWorks() async throws {
        let scratch = try RunCommandTests.Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("lib"), withIntermediateDirectories: true)
        let zlib = ["/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1"].first { FileManager.default.fileExists(atPath: $0) }
        try FileManager.default.createSymbolicLink(atPath: scratch.path("lib/libcurl.so.4"), withDestinationPath: try #require(zlib))
        try #"""
            {"version": 1, "outputDir": "out", "jobs": [{"id": "a", "download": {"url": "http://127.0.0.1:9/a.txt", "to": "a.txt"}}]}
            """#.write(toFile: scratch.path("m.json"), atomically: true, encoding: .utf8)
        let environment = ["LD_LIBRARY_PATH": scratch.path("lib")]

        let run = try await CommandRunner.run(["run", "m.json", "-q"], environment: environment, in: scratch.folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot start the transfer engine: dlopen: cannot load libcurl (libcurl.so.4): it has no function curl_"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out/a.txt")))

        let validate = try await CommandRunner.run(["validate", "m.json"], environment: environment, in: scratch.folder)
        #expect(validate.status == 0)
        #expect(validate.stdout == "ok: 1 job (1 download)\n")
    }
}
