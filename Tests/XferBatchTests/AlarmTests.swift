import Testing
@testable import XferBatch

/// What is checked is that each wait ends: a wait that never ended would hang, and the
/// time limit turns that into a failure.
@Suite("Alarm", .timeLimit(.minutes(1)))
struct AlarmTests {
    @Test func aWaitAfterTheRingReturnsAtOnceAndARingAgainDoesNothing() async {
        let alarm = Alarm()
        alarm.ring()
        alarm.ring()
        await alarm.wait()
        await alarm.wait()
    }

    @Test func aRingEndsAWaitUnderWay() async {
        let alarm = Alarm()
        async let waited: Void = alarm.wait()
        // Rung from elsewhere while the wait may or may not have begun: either way it ends.
        Task { alarm.ring() }
        await waited
    }
}
