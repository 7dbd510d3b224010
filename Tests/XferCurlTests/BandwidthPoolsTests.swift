import Testing
@testable import XferCurl

/// How a shared cap is divided (`BandwidthPools.waterFill`): transfers held back by
/// something else get what they can use, the others split the rest.
@Suite("Bandwidth shares")
struct BandwidthPoolsTests {
    @Test func transfersThatMayTakeMoreSplitTheCapEvenly() {
        #expect(BandwidthPools.waterFill(300, limits: [1: nil, 2: nil, 3: nil]) == [1: 100, 2: 100, 3: 100])
    }

    @Test func aSlowTransferGetsWhatItCanUseAndTheOthersTheRest() {
        #expect(BandwidthPools.waterFill(1000, limits: [1: 50, 2: nil, 3: nil]) == [1: 50, 2: 475, 3: 475])
    }

    /// A limit above an even split is no limit: the transfer could use its even share.
    @Test func aLimitAboveAnEvenSplitGetsTheEvenSplit() {
        #expect(BandwidthPools.waterFill(1000, limits: [1: 50, 2: 600, 3: nil]) == [1: 50, 2: 475, 3: 475])
    }

    /// When every transfer is held back, what none can use is spread over all of them, so a
    /// transfer that speeds up finds room at once.
    @Test func whatNoneCanUseIsSpreadOverAll() {
        #expect(BandwidthPools.waterFill(1000, limits: [1: 100, 2: 300]) == [1: 400, 2: 600])
    }

    @Test(arguments: [[1: nil, 2: 7, 3: nil] as [UInt64: Int64?], [1: 999, 2: 1], [1: 0, 2: nil, 3: 5, 4: nil, 5: 1000]])
    func theSharesNeverAddUpToMoreThanTheCap(limits: [UInt64: Int64?]) {
        let shares = BandwidthPools.waterFill(1000, limits: limits)
        #expect(shares.count == limits.count)
        #expect(shares.values.reduce(0, +) <= 1000)
        #expect(shares.values.allSatisfy { $0 >= 1 })
    }
}
