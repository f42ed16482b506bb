import Foundation
import InMemoryTracing
import Logging
import MetricsTestKit
import Rebound
import Testing
import Tracing

/// Secrets planted in a recorded error and in the record call's context must not appear in any
/// sink's output: log lines, file bytes, metric labels, span attributes.
@Suite struct ReportRedactionTests {
    static let secrets = ["s3cr3t-refresh-token", "person@example.com", "deep-cookie-value", "assert-secret-42"]

    /// A chain whose innermost link, four layers down, carries a sensitive cookie.
    static func errorWithDeepSecret() -> UserError {
        var networkContext: ErrorContext = ["curlCode": "28"]
        networkContext["cookie"] = .sensitive(secrets[2])
        let network = NetworkError(.timeout, context: networkContext)
        var apiContext: ErrorContext = ["endpoint": "/v1/token"]
        apiContext["refreshToken"] = .sensitive(secrets[0])
        let api = APIError(.getTokenFailed, cause: network, context: apiContext)
        return UserError(.connectionIssue, cause: LogicError(.loginFailed, cause: api))
    }

    @Test func noSinkOutputContainsAPlantedSecret() async throws {
        let directory = try ReportingFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("reports.jsonl").path
        let recorder = RecordingLogHandler()
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let reporter = ReportingFixture.reporter([
            LoggingReportSink(logger: Logger(label: "test", factory: { _ in recorder })),
            try JSONLinesReportSink(path: path),
            MetricsReportSink(factory: metrics),
            TracingReportSink(tracer: tracer),
        ])

        var context: ErrorContext = ["screen": "login"]
        context["email"] = .sensitive(Self.secrets[1])
        await tracer.withSpan("login") { _ in
            reporter.record(Self.errorWithDeepSecret(), context: context)
            reporter.record(Self.errorWithDeepSecret(), context: context)
            var assertionContext: ErrorContext = [:]
            assertionContext["token"] = .sensitive(Self.secrets[3])
            AssertionChecker(messenger: reporter, action: .continue)
                .check(false, "balance went negative", context: assertionContext)
            await reporter.flush()
        }

        let logText = recorder.rendered.joined(separator: "\n")
        let fileText = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        let metricText = metrics.counters.map { "\($0.label) \($0.dimensions)" }.joined(separator: "\n")
        let spanText = tracer.finishedSpans.map { span in
            "\(span.operationName) \(span.attributes) "
                + span.events.map { "\($0.name) \($0.attributes)" }.joined(separator: " ")
        }.joined(separator: "\n")

        // The outputs are not empty, and the redaction marker shows where the secrets were.
        #expect(recorder.rendered.count == 3)
        #expect(logText.contains(ErrorContext.Value.redactionMarker))
        #expect(fileText.contains(ErrorContext.Value.redactionMarker))
        #expect(fileText.contains("refreshToken"))
        #expect(fileText.contains("cookie"))
        #expect(metricText.contains("US14-LO43-AP7-NE2"))
        #expect(spanText.contains("rebound.nonfatal"))
        for secret in Self.secrets {
            #expect(!logText.contains(secret), "log lines leak \(secret)")
            #expect(!fileText.contains(secret), "the file leaks \(secret)")
            #expect(!metricText.contains(secret), "metric labels leak \(secret)")
            #expect(!spanText.contains(secret), "span attributes leak \(secret)")
        }
    }
}
