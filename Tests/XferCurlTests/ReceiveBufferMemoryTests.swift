#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import XferCurl

/// libcurl's receive buffers stay in the heap between transfers (`ReceiveBufferMemory`).
@Suite("Receive buffer memory")
struct ReceiveBufferMemoryTests {
    /// Eight transfers' buffers freed, then eight more: the second eight take the pages the
    /// first left, where a buffer served by `mmap` costs a page fault per 4 KiB touched
    /// (about a thousand here).
    @Test func aFreedReceiveBufferIsReusedWithoutPageFaults() throws {
        _ = try CurlLibrary.initialisation.get()  // the settings come with libcurl's initialisation
        let size = EasyTransfer.receiveBufferSize + 1  // what libcurl allocates
        let pages = size / 4096
        func useBuffers() {
            let buffers = (0..<8).map { _ in malloc(size)! }
            for buffer in buffers { memset(buffer, 1, size) }
            buffers.forEach { free($0) }
        }
        useBuffers()
        let before = Self.minorFaultsOfThisThread()
        useBuffers()
        let faults = Self.minorFaultsOfThisThread() - before
        #expect(faults < pages, "page faults for 8 reused buffers of \(pages) pages each: \(faults)")
    }

    /// Minor page faults of the calling thread so far (the test is synchronous, so it stays
    /// on one thread, and other tests' threads do not count).
    static func minorFaultsOfThisThread() -> Int {
        let rusageThread: Int32 = 1  // RUSAGE_THREAD, which Swift does not see (_GNU_SOURCE)
        var usage = rusage()
        getrusage(__rusage_who_t(rusageThread), &usage)
        return usage.ru_minflt
    }
}
