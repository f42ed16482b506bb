import Foundation
import ReboundTesting
import Testing

@testable import Rebound

@Suite struct TimeSourceTests {
    /// A source's readings around the standard clock's: the interval it measures holds the
    /// clock's, so it counts the same time, never less.
    private static func measuresAtLeast<C: Clock<Duration>>(_ clock: C, source: TimeSource) async throws {
        let sourceStart = source.now()
        let clockStart = clock.now
        try await Task.sleep(for: .milliseconds(20))
        let clockElapsed = clockStart.duration(to: clock.now)
        let sourceElapsed = source.now() - sourceStart
        #expect(sourceElapsed >= clockElapsed)
        #expect(clockElapsed >= .milliseconds(20))
    }

    @Test func aSourceOnTheContinuousClockCountsTheSameTimeAsTheClock() async throws {
        try await Self.measuresAtLeast(ContinuousClock(), source: .system)
    }

    @Test func aSourceOnTheSuspendingClockCountsTheSameTimeAsTheClock() async throws {
        try await Self.measuresAtLeast(SuspendingClock(), source: TimeSource(SuspendingClock(), date: { Date() }))
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
