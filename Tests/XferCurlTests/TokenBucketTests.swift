import Testing
@testable import XferCurl

/// The budget behind a bandwidth cap (`TokenBucket`), with times chosen by the test (in
/// nanoseconds).
@Suite("Bandwidth: the token bucket")
struct TokenBucketTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aQuietCapLetsATwentiethOfASecondsWorthThroughAtOnce() {
        var bucket = TokenBucket(rate: 1_000_000, at: 0)
        #expect(bucket.capacity == 50_000)
        let first = bucket.take(50_000, at: 0)
        let next = bucket.take(1, at: 0)
        #expect(first && !next, "the budget is spent")
        // However long it stays quiet, no more than the capacity builds up.
        let afterTenQuietSeconds = bucket.take(60_000, at: 10 * Self.second)
        #expect(afterTenQuietSeconds)
        #expect(bucket.tokens == -10_000)
    }

    @Test func aSlowCapStillHoldsAWholeChunk() {
        let bucket = TokenBucket(rate: 1000, at: 0)
        #expect(bucket.capacity == TokenBucket.leastCapacity)
    }

    /// A chunk is taken whole while anything is left; the debt it leaves is paid back by
    /// waiting, so the rate holds over time whatever the chunks' sizes.
    @Test func aChunkTakenPastTheBudgetIsPaidBackByWaiting() {
        var bucket = TokenBucket(rate: 100_000, at: 0)  // capacity: 16 KiB
        _ = bucket.take(16_384, at: 0)
        #expect(bucket.nanosUntilReady(at: 0) > 0)
        let later = Self.second / 10  // 10,000 bytes refilled
        let takenWhole = bucket.take(50_000, at: later)
        #expect(takenWhole, "something was left")
        #expect(bucket.tokens == -40_000)
        let due = bucket.nanosUntilReady(at: later)
        #expect(due > 4 * Self.second / 10 && due <= 4 * Self.second / 10 + 2, "0.4 s pays 40,000 bytes back: \(due)")
        let tooEarly = bucket.take(1, at: later + due - 1_000_000)
        let inTime = bucket.take(1, at: later + due)
        #expect(!tooEarly && inTime)
    }

    /// A time read before the last take (the loop reads the clock, then a callback takes
    /// with a later reading) counts as no time: it wrapped around to "ready now".
    @Test func aTimeBeforeTheLastTakeCountsAsNoTime() {
        var bucket = TokenBucket(rate: 1_000_000, at: 0)
        _ = bucket.take(100_000, at: Self.second)
        #expect(bucket.nanosUntilReady(at: Self.second - 1000) == bucket.nanosUntilReady(at: Self.second))
        #expect(bucket.nanosUntilReady(at: Self.second) > 0)
    }

    /// What goes through over a span is at most the rate times the span, plus the
    /// capacity and one chunk: 64 KiB chunks offered as fast as the budget allows.
    @Test func overAnySpanTheRateHolds() {
        var bucket = TokenBucket(rate: 1_000_000, at: 0)
        var now: UInt64 = 0, taken = 0
        while now < 5 * Self.second {
            if bucket.take(65_536, at: now) { taken += 65_536 } else { now += bucket.nanosUntilReady(at: now) }
        }
        #expect(taken <= 5_000_000 + 50_000 + 65_536)
        #expect(taken >= 5_000_000 - 65_536, "and the cap is used: \(taken)")
    }

    /// A capped transfer's chunk (its receive buffer) is a fiftieth of a second's worth,
    /// within libcurl's 16 KiB default and the 512 KiB of an uncapped transfer: fewer pauses
    /// at a high cap, and never more than the budget holds.
    @Test func aCappedTransfersChunkIsAFiftiethOfASecondWithinBounds() {
        #expect(EasyTransfer.bufferSize(underCap: 1000) == 16_384)
        #expect(EasyTransfer.bufferSize(underCap: 8_000_000) == 160_000)
        #expect(EasyTransfer.bufferSize(underCap: 100_000_000) == 524_288)
        #expect(EasyTransfer.bufferSize(underCap: 8_000_000) < TokenBucket(rate: 8_000_000, at: 0).capacity)
    }

    /// A read is sized by what the file gives, so it is charged after it went through.
    @Test func aReadIsChargedAfterItWentThrough() {
        var bucket = TokenBucket(rate: 1_000_000, at: 0)
        let before = bucket.hasBytes(at: 0)
        bucket.charge(70_000)
        let afterTheRead = bucket.hasBytes(at: 0)
        let twentyMillisecondsLater = bucket.hasBytes(at: Self.second / 50 + 1)
        #expect(before && !afterTheRead && twentyMillisecondsLater)
    }
}
