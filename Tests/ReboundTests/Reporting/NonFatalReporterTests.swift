import Foundation
import ReboundTesting
import TestSupport
import Testing
import Tracing

@testable import Rebound

@Suite struct NonFatalReporterTests {
    // MARK: - Record and return

    @Test func recordReturnsTheErrorToThrow() throws {
        let reporter = ReportingFixture.reporter([])
        func login() throws(LogicError) {
            throw reporter.record(ReportingFixture.error(1))
        }
        #expect(throws: LogicError.self) { try login() }
        let thrown = reporter.record(ReportingFixture.error(2))
        #expect(thrown.chain.short == "LO43-PR2-NE2")
    }

    @Test func theFirstOccurrenceIsSentWithChainContextPlaceBuildAndSession() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter([sink])
        var context: ErrorContext = ["screen": "login"]
        context["email"] = .sensitive("person@example.com")
        let line = #line + 1
        reporter.record(talkExample(), context: context)
        await reporter.flush()

        let report = try #require(sink.reports.first)
        #expect(sink.reports.count == 1)
        #expect(report.kind == .occurrence)
        #expect(report.chain == "US14-LO43-AP7-NE2")
        #expect(report.fullChain == talkExample().chain.full)
        #expect(report.error == talkExample().chain)
        #expect(report.context.map(\.key) == ["screen", "email"])
        #expect(report.context.map(\.value) == ["login", ErrorContext.Value.redactionMarker])
        #expect(report.file == #fileID)
        #expect(report.line == line)
        #expect(report.function == "theFirstOccurrenceIsSentWithChainContextPlaceBuildAndSession()")
        #expect(report.time == ReportingFixture.time)
        #expect(report.build == ReportingFixture.build)
        #expect(report.session == ReportingFixture.session)
        #expect(report.occurrences == 1)
        #expect(report.sequence == 1)
    }

    @Test func aReportIsOneJSONObjectThatDecodesBackEqualWithAnISO8601Time() throws {
        let report = NonFatalReport(
            kind: .occurrence,
            error: talkExample().chain,
            context: [.init(key: "screen", value: "login", isSensitive: false)],
            file: "App/Login.swift",
            line: 42,
            function: "login()",
            time: ReportingFixture.time.addingTimeInterval(0.25),
            build: ReportingFixture.build,
            session: ReportingFixture.session
        )
        let line = try report.jsonLine()
        let text = String(decoding: line, as: UTF8.self)
        #expect(!text.contains("\n"))
        #expect(text.contains(#""time":"2025-02-19T21:20:00.250Z""#))
        #expect(text.contains(#""chain":"US14-LO43-AP7-NE2""#))
        let object = try JSONSerialization.jsonObject(with: line) as? [String: Any]
        #expect(
            Set(object?.keys.map { $0 } ?? []) == [
                "build", "chain", "context", "error", "file", "fullChain", "function", "kind", "line",
                "occurrences", "sequence", "session", "time",
            ])
        #expect(try JSONDecoder().decode(NonFatalReport.self, from: line) == report)
    }

    @Test func hugeReasonsAndContextValuesAreCutSoThatAReportStaysSmall() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter([sink])
        // A response body in a reason and in the context, as a careless call site might record it.
        let huge = String(repeating: "x", count: 4 * 1024 * 1024)
        let network = NetworkError(.timeout, reason: huge, context: ["body": "\(huge)", "\(huge)": "key"])
        reporter.record(LogicError(.loginFailed, cause: network, reason: huge), context: ["response": "\(huge)"])
        await reporter.flush()

        let report = try #require(sink.reports.first)
        // Compared by length and ending, so that a failure does not print megabytes.
        let cut = String(repeating: "x", count: 500) + "…"
        func isCut(_ text: String?) -> Bool { text?.count == cut.count && text == cut }
        #expect(report.error.links.count == 2)
        #expect(report.error.links.allSatisfy { isCut($0.reason) })
        #expect(report.error.links[1].context.count == 2)
        #expect(report.error.links[1].context.first.map { $0.key == "body" && isCut($0.value) } == true)
        #expect(report.error.links[1].context.last.map { isCut($0.key) && $0.value == "key" } == true)
        #expect(report.context.count == 1)
        #expect(report.context.first.map { $0.key == "response" && isCut($0.value) } == true)
        // Five texts of 500 characters and the rest of a report: 3.4 KB, not 20 MB.
        #expect(try report.jsonLine().count < 4 * 1024)
    }

    // MARK: - Grouping

    @Test func repeatsAreCountedAndTheirCountArrivesAtFlush() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter([sink])
        for _ in 0..<7 { reporter.record(ReportingFixture.error(1)) }
        reporter.record(ReportingFixture.error(2))
        await reporter.flush()

        #expect(sink.reports.map(\.kind) == [.occurrence, .occurrence, .repeats])
        let summary = try #require(sink.reports.last)
        #expect(summary.chain == "LO43-PR1-NE2")
        #expect(summary.occurrences == 6)
        #expect(summary.context.isEmpty)
        #expect(summary.sequence == 3)
        let statistics = reporter.statistics
        #expect(statistics.recorded == 8)
        #expect(statistics.sent == 2)
        #expect(statistics.repeatsCounted == 6)
        #expect(statistics.repeatReports == 1)
        #expect(statistics.dropped == 0)

        // A flush without new repeats sends nothing more.
        await reporter.flush()
        #expect(sink.reports.count == 3)
    }

    @Test func aChainStopsAfterItsCapAndItsDropsAreReported() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter(
            [sink], configuration: ReportingFixture.configuration(maximumReportsPerChain: 3))
        // 1 sent, then two flushes with repeats use the chain's other two reports.
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()
        // The chain has used its 3 reports: these are dropped.
        for _ in 0..<4 { reporter.record(ReportingFixture.error(1)) }
        await reporter.flush()

        let statistics = reporter.statistics
        #expect(statistics.recorded == 8)
        #expect(statistics.sent == 1)
        #expect(statistics.repeatsCounted == 3)
        #expect(statistics.droppedByChainCap == 4)
        let chainReports = sink.reports.filter { $0.chain == "LO43-PR1-NE2" }
        #expect(chainReports.map(\.occurrences) == [1, 1, 2])
        let drops = try #require(sink.reports.last)
        #expect(drops.kind == .drops)
        #expect(drops.chain == "RP1")
        #expect(drops.occurrences == 4)
        #expect(drops.context.first { $0.key == "droppedByChainCap" }?.value == "4")
        #expect(drops.context.first { $0.key == "recorded" }?.value == "8")
    }

    @Test func aSessionStopsTakingNewChainsAfterItsCap() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter(
            [sink], configuration: ReportingFixture.configuration(maximumChainsPerSession: 3))
        for code in 1...5 { reporter.record(ReportingFixture.error(code)) }
        reporter.record(ReportingFixture.error(5))
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()

        let statistics = reporter.statistics
        #expect(statistics.sent == 3)
        #expect(statistics.droppedBySessionCap == 3)
        #expect(statistics.repeatsCounted == 1)
        #expect(
            sink.reports.filter { $0.kind == .occurrence }.map(\.chain) == [
                "LO43-PR1-NE2", "LO43-PR2-NE2", "LO43-PR3-NE2",
            ])
        #expect(sink.reports.last?.kind == .drops)
        #expect(sink.reports.last?.occurrences == 3)
    }

    @Test func aFullQueueDropsTheNewReportAndCountsIt() async throws {
        let clock = TestClock(mode: .manual)
        let sink = HangingReportSink()
        let reporter = ReportingFixture.reporter(
            [sink], configuration: ReportingFixture.configuration(queueCapacity: 2, sinkTimeout: .seconds(5)),
            clock: clock)
        // The first report is taken by the delivery task and hangs in the sink; two more fill the queue.
        reporter.record(ReportingFixture.error(1))
        #expect(await waitUntil { sink.started == 1 })
        for code in 2...5 { reporter.record(ReportingFixture.error(code)) }

        let statistics = reporter.statistics
        #expect(statistics.recorded == 5)
        #expect(statistics.sent == 3)
        #expect(statistics.droppedByQueueFull == 2)
        // A dropped first occurrence is not remembered: the chain can be sent when it occurs again.
        clock.advance(by: .seconds(5))
        #expect(await waitUntil { sink.started == 2 })
        clock.advance(by: .seconds(5))
        #expect(await waitUntil { sink.started == 3 })
        clock.advance(by: .seconds(5))
        #expect(await waitUntil { reporter.statistics.sinkTimeouts == 3 })
        reporter.record(ReportingFixture.error(4))
        #expect(reporter.statistics.sent == 4)
    }

    // MARK: - Sinks that fail

    @Test func aHangingSinkNeitherBlocksRecordNorOtherSinksAndIsTimedOut() async throws {
        let clock = TestClock(mode: .manual)
        let hanging = HangingReportSink()
        let recording = RecordingReportSink()
        let reporter = ReportingFixture.reporter(
            [hanging, recording], configuration: ReportingFixture.configuration(sinkTimeout: .seconds(5)), clock: clock)
        // record returns at once although the sink will never finish.
        for code in 1...3 { reporter.record(ReportingFixture.error(code)) }
        #expect(reporter.statistics.sent == 3)
        #expect(await waitUntil { hanging.started == 1 && recording.reports.count == 1 })

        // Each report waits for the hanging sink up to the timeout, then moves on.
        for delivered in 2...3 {
            #expect(await waitUntil { clock.sleeperCount >= 1 })
            clock.advance(by: .seconds(5))
            #expect(await waitUntil { recording.reports.count == delivered })
        }
        #expect(await waitUntil { clock.sleeperCount >= 1 })
        clock.advance(by: .seconds(5))
        #expect(await waitUntil { reporter.statistics.sinkTimeouts == 3 })
        #expect(reporter.statistics.sinkFailures == 3)
        #expect(await waitUntil { hanging.cancelled == 3 })
    }

    @Test func aThrowingSinkIsCountedAndTheOthersStillGetEveryReport() async throws {
        let recording = RecordingReportSink()
        let reporter = ReportingFixture.reporter([FailingReportSink(), recording])
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(2))
        await reporter.flush()
        // Two reports failed, and the drops report about them failed in the same sink.
        #expect(reporter.statistics.sinkFailures == 3)
        #expect(reporter.statistics.sinkTimeouts == 0)
        // The flush made a drops report about the failures; it reached the working sink.
        #expect(recording.reports.map(\.kind) == [.occurrence, .occurrence, .drops])
        #expect(recording.reports.last?.context.first { $0.key == "sinkFailures" }?.value == "2")
        #expect(recording.reports.last?.occurrences == 0)
    }

    @Test func flushGivesUpAfterItsTimeout() async throws {
        let clock = TestClock(mode: .manual)
        let hanging = HangingReportSink()
        let reporter = ReportingFixture.reporter(
            [hanging],
            configuration: ReportingFixture.configuration(sinkTimeout: .seconds(60), flushTimeout: .seconds(10)),
            clock: clock)
        reporter.record(ReportingFixture.error(1))
        async let flushed: Void = reporter.flush()
        // The sink's timer (60 s) and the flush's (10 s) both wait on the clock.
        #expect(await waitUntil { clock.sleeperCount == 2 })
        clock.advance(by: .seconds(10))
        await flushed
        #expect(reporter.statistics.sinkFailures == 0)
        clock.advance(by: .seconds(50))
        #expect(await waitUntil { reporter.statistics.sinkTimeouts == 1 })
    }

    // MARK: - Shutdown

    @Test func shutdownSendsTheLastCountsAndLaterOccurrencesAreCountedAsDropped() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter([sink])
        reporter.record(ReportingFixture.error(1))
        reporter.record(ReportingFixture.error(1))
        await reporter.shutdown()
        #expect(sink.reports.map(\.kind) == [.occurrence, .repeats])

        reporter.record(ReportingFixture.error(2))
        let statistics = reporter.statistics
        #expect(statistics.recorded == 3)
        #expect(statistics.droppedByQueueFull == 1)
        await reporter.flush()
        #expect(sink.reports.count == 2)
    }

    @Test func atShutdownTheDropsReportGetsInEvenWhenSummariesFillTheQueue() async throws {
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter(
            [sink], configuration: ReportingFixture.configuration(queueCapacity: 1))
        // Four chains, each sent on its own: a flush waits until its report is delivered.
        for code in 1...4 {
            reporter.record(ReportingFixture.error(code))
            await reporter.flush()
        }
        for code in 1...4 {
            for _ in 0..<10 { reporter.record(ReportingFixture.error(code)) }
        }
        // Four repeat summaries at shutdown, and room for one or two: the others are dropped, and
        // the drops report has to say so although the summaries filled the queue.
        await reporter.shutdown()

        let statistics = reporter.statistics
        #expect(statistics.droppedByQueueFull >= 20)
        let reportedDrops = sink.reports.filter { $0.kind == .drops }.map(\.occurrences).reduce(0, +)
        #expect(reportedDrops == statistics.dropped)
        #expect(sink.reports.last?.kind == .drops)
    }

    /// A reporter released without `shutdown()` ends its session as `shutdown()` would, without
    /// waiting: the repeats counted since the last flush and the drops still go to the sinks, so
    /// forgetting to shut down loses no count silently.
    @Test(.timeLimit(.minutes(1)))
    func aReporterReleasedWithoutShutdownStillSendsItsLastCountsAndDrops() async throws {
        /// Keeps every report, and ends `released` when the reporter lets go of it: its delivery
        /// task has then ended, after delivering everything it queued.
        final class ReleaseSignallingSink: ReportSink {
            let received = Locked<[NonFatalReport]>([])
            let released: AsyncStream<Never>.Continuation
            init(released: AsyncStream<Never>.Continuation) { self.released = released }
            deinit { released.finish() }
            func receive(_ report: NonFatalReport) async throws { received.withLock { $0.append(report) } }
        }
        let (released, continuation) = AsyncStream<Never>.makeStream()
        let received: Locked<[NonFatalReport]>
        do {
            let sink = ReleaseSignallingSink(released: continuation)
            received = sink.received
            let reporter = ReportingFixture.reporter(
                [sink], configuration: ReportingFixture.configuration(maximumChainsPerSession: 1))
            for _ in 0..<3 { reporter.record(ReportingFixture.error(1)) }
            reporter.record(ReportingFixture.error(2))  // a second chain: over the session's cap
            #expect(reporter.statistics.repeatsCounted == 2)
            #expect(reporter.statistics.droppedBySessionCap == 1)
        }
        for await _ in released {}

        let reports = received.withLock { $0 }
        #expect(reports.map(\.kind) == [.occurrence, .repeats, .drops])
        #expect(reports.map(\.occurrences) == [1, 2, 1])
        #expect(reports.dropLast().allSatisfy { $0.chain == "LO43-PR1-NE2" })
    }

    // MARK: - Tracing context

    @Test func aSinkRunsUnderTheServiceContextOfTheRecordingCode() async throws {
        enum MarkerKey: ServiceContextKey { typealias Value = String }
        final class ContextSink: ReportSink {
            let seen = Locked<[String?]>([])
            func receive(_ report: NonFatalReport) async throws {
                seen.withLock { $0.append(ServiceContext.current?[MarkerKey.self]) }
            }
        }
        let sink = ContextSink()
        let reporter = ReportingFixture.reporter([sink])
        var context = ServiceContext.topLevel
        context[MarkerKey.self] = "request-17"
        ServiceContext.withValue(context) {
            _ = reporter.record(ReportingFixture.error(1))
        }
        await reporter.flush()
        #expect(sink.seen.withLock { $0 } == ["request-17"])
    }
}
