import Foundation
import Rebound
import ReboundTesting
import TestSupport
import Testing

@Suite struct ReportDeliveryModeTests {
    // MARK: - Written before return

    @Test func writtenBeforeReturnASynchronousSinkHasTheReportWhenRecordReturns() async throws {
        let synchronous = SynchronousRecordingSink()
        let other = RecordingReportSink()
        let reporter = ReportingFixture.reporter(
            [synchronous, other], configuration: ReportingFixture.configuration(delivery: .writtenBeforeReturn))
        for code in 1...3 {
            reporter.record(ReportingFixture.error(code))
            #expect(synchronous.written == Array(1...code))
        }
        await reporter.flush()
        // The synchronous sink got each report once, the other sink got them from the queue.
        #expect(synchronous.written == [1, 2, 3])
        #expect(synchronous.received.isEmpty)
        #expect(other.reports.map(\.sequence) == [1, 2, 3])
        #expect(reporter.statistics.sent == 3)
        #expect(reporter.statistics.sinkFailures == 0)
    }

    @Test func queuedEverySinkGetsTheReportFromTheQueue() async throws {
        let synchronous = SynchronousRecordingSink()
        let reporter = ReportingFixture.reporter([synchronous])
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()
        #expect(synchronous.events == [.received(1), .flushed])
    }

    @Test func writtenBeforeReturnRepeatSummariesAndTheDropsReportStillComeFromTheQueue() async throws {
        let synchronous = SynchronousRecordingSink()
        let reporter = ReportingFixture.reporter(
            [synchronous],
            configuration: ReportingFixture.configuration(maximumChainsPerSession: 1, delivery: .writtenBeforeReturn))
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(2))  // past the session cap: dropped
        await reporter.flush()
        // The occurrence before return; the repeat summary (2) and the drops report (3) at the flush.
        #expect(synchronous.events == [.written(1), .received(2), .received(3), .flushed])
    }

    @Test func writtenBeforeReturnASynchronousSinkThatThrowsCountsAsASinkFailure() async throws {
        let failing = SynchronousRecordingSink(failing: true)
        let other = RecordingReportSink()
        let reporter = ReportingFixture.reporter(
            [failing, other], configuration: ReportingFixture.configuration(delivery: .writtenBeforeReturn))
        reporter.record(ReportingFixture.error(1))
        #expect(reporter.statistics.sinkFailures == 1)
        #expect(reporter.statistics.sent == 1)
        await reporter.flush()
        #expect(other.reports.map(\.kind) == [.occurrence, .drops])
    }

    @Test func writtenBeforeReturnAFullQueueStillLetsTheReportBeWrittenAndCountsTheOtherSinksMiss() async throws {
        let clock = TestClock(mode: .manual)
        let synchronous = SynchronousRecordingSink()
        let hanging = HangingReportSink()
        let reporter = ReportingFixture.reporter(
            [synchronous, hanging],
            configuration: ReportingFixture.configuration(
                queueCapacity: 1, sinkTimeout: .seconds(5), delivery: .writtenBeforeReturn),
            clock: clock)
        // The first report hangs in the other sink, the second fills the queue, the third does not fit.
        reporter.record(ReportingFixture.error(1))
        #expect(await waitUntil { hanging.started == 1 })
        reporter.record(ReportingFixture.error(2))
        reporter.record(ReportingFixture.error(3))
        #expect(synchronous.written == [1, 2, 3])
        let statistics = reporter.statistics
        #expect(statistics.sent == 3)
        #expect(statistics.droppedByQueueFull == 0)
        #expect(statistics.sinkFailures == 1)
        #expect(statistics.sinkTimeouts == 0)
    }

    @Test func writtenBeforeReturnWithOnlySynchronousSinksNothingWaitsInTheQueue() async throws {
        let clock = TestClock(mode: .manual)
        let synchronous = SynchronousRecordingSink()
        let reporter = ReportingFixture.reporter(
            [synchronous],
            configuration: ReportingFixture.configuration(queueCapacity: 1, delivery: .writtenBeforeReturn),
            clock: clock)
        for code in 1...5 { reporter.record(ReportingFixture.error(code)) }
        #expect(synchronous.written == [1, 2, 3, 4, 5])
        #expect(reporter.statistics.sent == 5)
        #expect(reporter.statistics.dropped == 0)
    }

    // MARK: - Flushing the sinks

    @Test func flushFlushesEverySinkAfterTheReportsQueuedBeforeIt() async throws {
        let first = SynchronousRecordingSink()
        let second = SynchronousRecordingSink()
        let reporter = ReportingFixture.reporter([first, second])
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(2))
        await reporter.flush()
        #expect(first.events == [.received(1), .received(2), .flushed])
        #expect(second.events == [.received(1), .received(2), .flushed])
        await reporter.shutdown()
        #expect(first.events.last == .flushed)
        #expect(first.events.count == 4)
    }

    @Test func aSinkWhoseFlushThrowsCountsAsASinkFailureAndTheOthersAreStillFlushed() async throws {
        let recording = SynchronousRecordingSink()
        let reporter = ReportingFixture.reporter([UnflushableReportSink(), recording])
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()
        #expect(reporter.statistics.sinkFailures == 1)
        #expect(recording.events == [.received(1), .flushed])
    }

    /// A flush from a task cancelled before it registered its wait returns at once, as one
    /// cancelled while waiting does, rather than wait out its `flushTimeout`.
    @Test func aFlushFromACancelledTaskReturnsWithoutWaiting() async throws {
        let clock = TestClock(mode: .manual)
        let hanging = HangingReportSink()
        let reporter = ReportingFixture.reporter(
            [hanging], configuration: ReportingFixture.configuration(sinkTimeout: .seconds(5)), clock: clock)
        reporter.record(ReportingFixture.error(1))
        #expect(await waitUntil { hanging.started == 1 })
        let returned = Locked(false)
        let flush = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await reporter.flush()
            returned.withLock { $0 = true }
        }
        let flushReturned = await waitUntil { returned.withLock { $0 } }
        // A failing run still ends: past every timer.
        if !flushReturned { clock.advance(by: .seconds(3_600)) }
        await flush.value
        #expect(flushReturned)
    }

    @Test func aSinkWhoseFlushHangsIsTimedOut() async throws {
        let clock = TestClock(mode: .manual)
        let reporter = ReportingFixture.reporter(
            [UnflushableReportSink(hangs: true)],
            configuration: ReportingFixture.configuration(sinkTimeout: .seconds(5)),
            clock: clock)
        async let flushed: Void = reporter.flush()
        // Nothing to deliver: the one timer is the sink's flush's.
        #expect(await waitUntil { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(5))
        await flushed
        #expect(reporter.statistics.sinkTimeouts == 1)
    }
}
