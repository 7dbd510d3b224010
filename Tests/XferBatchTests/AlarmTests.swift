import Testing
@testable import XferBatch

/// A wait ends when the alarm rings and not before; one that never ended would hang, and
/// the time limit turns that into a failure.
@Suite("Alarm", .timeLimit(.minutes(1)))
struct AlarmTests {
    @Test func aWaitLastsUntilTheRing() async {
        let alarm = Alarm()
        let ended = Slot(false)
        let waiting = Task {
            await alarm.wait()
            ended.update { $0 = true }
        }
        // Give the wait every chance to end early: it must not.
        for _ in 0..<200 { await Task.yield() }
        #expect(!ended.current, "the wait ended before the ring")
        alarm.ring()
        await waiting.value
        #expect(ended.current)
    }

    @Test func aWaitAfterTheRingReturnsAtOnceAndARingAgainDoesNothing() async {
        let alarm = Alarm()
        alarm.ring()
        alarm.ring()
        await alarm.wait()
        await alarm.wait()
    }
}
