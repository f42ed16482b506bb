import Foundation
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

@testable import Rebound

@Suite struct ReportSinkTests {
    // MARK: - swift-log

    @Test func theLogSinkWritesOneLinePerReportWithTheChainContextPlaceBuildAndSession() async throws {
        let recorder = RecordingLogHandler()
        let sink = LoggingReportSink(logger: Logger(label: "test", factory: { _ in recorder }))
        let reporter = ReportingFixture.reporter([sink])
        reporter.record(talkExample(), context: ["screen": "login"])
        reporter.record(talkExample())
        await reporter.flush()

        let lines = recorder.lines.withLock { $0 }
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(first.level == .error)
        #expect(first.message == "non-fatal US14-LO43-AP7-NE2")
        #expect(first.metadata["chain"] == .string(talkExample().chain.full))
        #expect(first.metadata["context"] == .string("[screen: login]"))
        #expect(first.metadata["location"] == .string("\(#fileID):\(#line - 11)"))
        #expect(first.metadata["build"] == .string("2.4.1 (3f9c2ab)"))
        #expect(first.metadata["session"] == .string(ReportingFixture.session.uuidString))
        // The repeat summary is a warning: it counts what was already logged as an error.
        #expect(lines[1].level == .warning)
        #expect(lines[1].metadata["occurrences"]?.description == "1")
        #expect(lines[1].metadata["kind"] == .string("repeats"))
    }

    // MARK: - swift-metrics

    @Test func theMetricsSinkCountsOccurrencesPerChainRepeatsIncluded() async throws {
        let metrics = TestMetrics()
        let reporter = ReportingFixture.reporter([MetricsReportSink(factory: metrics)])
        for _ in 0..<4 { reporter.record(ReportingFixture.error(1)) }
        reporter.record(ReportingFixture.error(2))
        await reporter.flush()
        #expect(try metrics.expectCounter("rebound_nonfatal_total", [("chain", "LO43-PR1-NE2")]).totalValue == 4)
        #expect(try metrics.expectCounter("rebound_nonfatal_total", [("chain", "LO43-PR2-NE2")]).totalValue == 1)
    }

    @Test func theMetricsSinkKeepsItsCardinalityBounded() async throws {
        let metrics = TestMetrics()
        let sink = MetricsReportSink(factory: metrics, maximumChains: 3)
        for code in 1...10 {
            try await sink.receive(Self.report(chain: ReportingFixture.error(code).chain))
        }
        try await sink.receive(Self.report(chain: ReportingFixture.error(2).chain))
        let counters = metrics.counters(label: "rebound_nonfatal_total")
        #expect(counters.count == 4)
        #expect(try metrics.expectCounter("rebound_nonfatal_total", [("chain", "other")]).totalValue == 7)
        #expect(try metrics.expectCounter("rebound_nonfatal_total", [("chain", "LO43-PR2-NE2")]).totalValue == 2)
    }

    // MARK: - swift-distributed-tracing

    @Test func theTracingSinkAddsAnEventToTheRecordersSpan() async throws {
        let tracer = InMemoryTracer()
        let reporter = ReportingFixture.reporter([TracingReportSink(tracer: tracer)])
        await tracer.withSpan("login") { _ in
            reporter.record(talkExample())
            await reporter.flush()
        }
        #expect(tracer.finishedSpans.count == 1)
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.operationName == "login")
        let event = try #require(span.events.first)
        #expect(event.name == "rebound.nonfatal")
        #expect(event.attributes["rebound.chain"]?.toSpanAttribute() == "US14-LO43-AP7-NE2")
        #expect(event.attributes["rebound.chain.full"]?.toSpanAttribute() == .string(talkExample().chain.full))
        #expect(event.attributes["rebound.occurrences"]?.toSpanAttribute() == 1)
    }

    @Test func withoutALiveSpanTheTracingSinkStartsATinyOneInTheSameTrace() async throws {
        let tracer = InMemoryTracer()
        let reporter = ReportingFixture.reporter([TracingReportSink(tracer: tracer)])
        // Recorded in a span that ends before the report is delivered.
        tracer.withSpan("request") { _ in
            _ = reporter.record(talkExample())
        }
        await reporter.flush()
        reporter.record(ReportingFixture.error(1))
        await reporter.flush()

        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        let nonFatal = spans.filter { $0.operationName == "rebound.nonfatal" }
        #expect(nonFatal.count == 2)
        #expect(nonFatal.allSatisfy { $0.events.map(\.name) == ["rebound.nonfatal"] })
        // The first joins the request's trace; the second had none and is a trace of its own.
        let joined = try #require(
            nonFatal.first { $0.events.first?.attributes["rebound.chain"]?.toSpanAttribute() == "US14-LO43-AP7-NE2" })
        #expect(joined.traceID == request.traceID)
        #expect(joined.parentSpanID == request.spanID)
    }

    static func report(chain: ErrorChain, occurrences: Int = 1) -> NonFatalReport {
        NonFatalReport(
            kind: .occurrence,
            error: chain,
            file: "App/File.swift",
            line: 1,
            function: "f()",
            time: ReportingFixture.time,
            build: ReportingFixture.build,
            session: ReportingFixture.session,
            occurrences: occurrences
        )
    }
}
