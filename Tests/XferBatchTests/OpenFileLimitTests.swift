import Testing
@testable import XferBatch

@Suite("Open-file limit")
struct OpenFileLimitTests {
    @Test func aConcurrencyTheLimitCannotHoldIsLoweredWithAWarningNamingBothNumbers() {
        var limits = Limits(concurrency: 300, perHost: 300)
        let warning = OpenFileLimit.fit(&limits, openFiles: 1_024)
        #expect(limits.concurrency == 185, "(1,024 - 96 reserved) / 5 per transfer")
        #expect(limits.perHost == 185)
        #expect(warning == "limits.concurrency 300 needs about 1596 open files, and this process may open 1024 (ulimit -n): running 185 transfers at once")
    }

    @Test func aConcurrencyWithinTheLimitIsLeftAsItIs() {
        var limits = Limits(concurrency: 185)
        #expect(OpenFileLimit.fit(&limits, openFiles: 1_024) == nil)
        #expect(limits.concurrency == 185)
    }

    @Test func evenATinyLimitLeavesOneTransfer() {
        var limits = Limits(concurrency: 8)
        _ = OpenFileLimit.fit(&limits, openFiles: 20)
        #expect(limits.concurrency == 1)
    }

}
