import Testing
@testable import XferCurl

/// libcurl is looked up at run time (`CurlFunctions`, `CurlLibrary`), not linked.
@Suite("CurlFunctions")
struct CurlFunctionsTests {
    /// A machine without libcurl still validates and plans; a run there fails at its first
    /// engine with the loader's own reason and the file it looked for.
    @Test func aLibraryThatCannotBeLoadedIsAnErrorNamingItAndWhy() {
        guard case .failure(let error) = CurlFunctions.load("libcurl.so.999") else {
            Issue.record("a library that does not exist was loaded")
            return
        }
        #expect(error.kind == .local)
        #expect(error.code == "dlopen")
        #expect(error.message == "cannot load libcurl (libcurl.so.999): libcurl.so.999: cannot open shared object file: No such file or directory")
    }

    /// A library by that name that is not libcurl (or too old) lacks a function.
    @Test func aLibraryWithoutOneOfTheFunctionsIsAnErrorNamingTheFunction() {
        guard case .failure(let error) = CurlFunctions.load("libz.so.1") else {
            Issue.record("zlib was taken for libcurl")
            return
        }
        #expect(error.message.hasPrefix("cannot load libcurl (libz.so.1): it has no function curl_"))
    }

    /// The installed libcurl loads with every function the table names, initialises, and
    /// names its version (`--version` prints it).
    @Test func theInstalledLibraryLoadsAndNamesItsVersion() throws {
        _ = try CurlLibrary.initialisation.get()
        #expect(CurlLibrary.version.split(separator: ".").count == 3, "\(CurlLibrary.version)")
    }
}
