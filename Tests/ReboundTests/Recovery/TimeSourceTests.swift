import Foundation
import ReboundTesting
import Testing

@testable import Rebound

@Suite struct TimeSourceTests {
    /// A source's readings around the standard clock's time since its epoch hold it between them:
    /// the same clock, the same origin, the same unit.
    private static func readsTheClockSinceItsEpoch(_ source: TimeSource, _ clock: () -> Duration) {
        let before = source.now()
        let reading = clock()
        let after = source.now()
        #expect(before <= reading && reading <= after)
    }

    @Test func aSourceOnTheContinuousClockReadsItsTimeSinceItsEpoch() {
        Self.readsTheClockSinceItsEpoch(.system) { ContinuousClock().systemEpoch.duration(to: .now) }
    }

    @Test func aSourceOnTheSuspendingClockReadsItsTimeSinceItsEpoch() {
        Self.readsTheClockSinceItsEpoch(TimeSource(SuspendingClock(), date: { Date() })) {
            SuspendingClock().systemEpoch.duration(to: .now)
        }
    }

    @Test func sourcesOnTheSameSystemClockShareTheirOrigin() {
        let first = TimeSource.system
        let second = TimeSource(ContinuousClock(), date: { Date() })
        let before = first.now()
        let between = second.now()
        let after = first.now()
        #expect(before <= between && between <= after)
    }

    @Test func aSourceOnAnotherClockMeasuresFromWhenItWasMade() {
        let clock = TestClock(mode: .manual)
        let source = TimeSource(clock, date: { Date() })
        #expect(source.now() == .zero)
        clock.advance(by: .seconds(3))
        #expect(source.now() == .seconds(3))
    }
}
