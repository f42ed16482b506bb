import Testing

@testable import Rebound

@Suite struct PipelineClockTests {
    @Test func theRealClockMeasuresFromWhenItWasOpenedAndSleeps() async throws {
        let clock = PipelineClock(ContinuousClock())
        let opened = clock.now()
        #expect(opened >= .zero)
        try await clock.sleep(.milliseconds(20))
        // Sleeping never wakes early; how late it wakes is the machine's business.
        #expect(clock.now() - opened >= .milliseconds(20))
    }

    @Test func aSuspendingClockWorksThroughTheGenericPath() async throws {
        let clock = PipelineClock(SuspendingClock())
        let opened = clock.now()
        try await clock.sleep(.milliseconds(20))
        #expect(clock.now() - opened >= .milliseconds(20))
    }

    @Test func aCancelledSleepThrows() async {
        let clock = PipelineClock(ContinuousClock())
        let task = Task { try await clock.sleep(.seconds(60)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
