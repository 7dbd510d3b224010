import Testing
@testable import XferArchive

/// libarchive is looked up at run time (`LibArchive`), not linked.
@Suite("LibArchive")
struct LibArchiveTests {
    /// A machine without libarchive still runs downloads; an archive job there fails with
    /// the loader's own reason and the file it looked for.
    @Test func aLibraryThatCannotBeLoadedIsAnErrorNamingItAndWhy() {
        guard case .failure(let error) = LibArchive.load("libarchive.so.999") else {
            Issue.record("a library that does not exist was loaded")
            return
        }
        #expect(error.message == "cannot load libarchive (libarchive.so.999): libarchive.so.999: cannot open shared object file: No such file or directory")
    }

    /// A library by that name that is not libarchive (or too old) lacks a function.
    @Test func aLibraryWithoutOneOfTheFunctionsIsAnErrorNamingTheFunction() {
        guard case .failure(let error) = LibArchive.load("libz.so.1") else {
            Issue.record("zlib was taken for libarchive")
            return
        }
        #expect(error.message.hasPrefix("cannot load libarchive (libz.so.1): it has no function archive_"))
    }

    @Test func theInstalledLibraryLoadsWithEveryFunctionTheModuleCalls() throws {
        let functions = try LibArchive.load(LibArchive.soname).get()
        #expect(functions.archive_version_string().map { String(cString: $0) }?.hasPrefix("libarchive 3.") == true)
    }
}
