#if OTel
    import CoreMetrics
    import Foundation
    import Logging
    import Rebound
    import ReboundCurl
    import ReboundMockBackend
    import ReboundOTel
    import Synchronization
    import TestSupport
    import Testing
    import Tracing

    /// ReboundOTel against a real OTLP receiver (`scripts/otlp-receiver.py`, decoding with the official
    /// protobuf definitions): what arrives, that nothing secret does, and that a collector that is down
    /// never gets in a call's way.
    @Suite(.serialized) struct OTLPExportTests {
        @Test func spansMetricsAndReportsReachTheCollector() async throws {
            let transport = CurlTransport()
            defer { transport.shutdown() }
            let receiver = try await OTLPReceiver.start(transport: transport)
            defer { receiver.stop() }
            let export = try OTLPExport(
                configuration: .init(
                    endpoint: receiver.endpoint, serviceName: "export-tests", build: Scenario.build,
                    scheduleDelay: .milliseconds(100), metricsInterval: .milliseconds(500)))
            let exporting = Task { try await export.run() }
            let scenario = try await Scenario.start(
                transport: transport, metricsFactory: export.metricsFactory, tracer: export.tracer)
            let reporter = NonFatalReporter(
                configuration: .init(build: Scenario.build), sinks: [OTLPReportSink(export: export)])

            let chain = try await withSpan("checkout", tracer: export.tracer) {
                try await scenario.run(reporter: reporter)
            }
            await reporter.shutdown()
            try await scenario.stop()
            export.shutdown()
            try await exporting.value

            let items = try await receiver.items { items in
                items.contains { $0.signal == "log" }
                    && items.filter { $0.signal == "span" }.count >= 4 + Scenario.maxAttempts
                    && items.contains { $0.name == "rebound_failures_total" }
            }
            #expect(items.filter { $0.signal == "error" }.isEmpty)

            // Spans: the caller's span, under it one INTERNAL span per call, and under each call
            // one CLIENT span per attempt.
            let spans = items.filter { $0.signal == "span" }
            let checkout = try #require(spans.first { $0.name == "checkout" })
            #expect(checkout.kind == "SPAN_KIND_INTERNAL")
            #expect(checkout.resource?["service.name"] == "export-tests")
            #expect(checkout.resource?["service.version"] == Scenario.build.description)
            let calls = spans.filter { $0.parentSpanId == checkout.spanId }
            #expect(calls.compactMap(\.name).sorted() == ["GET /outage", "GET /tasks", "GET /tasks"])
            #expect(calls.allSatisfy { $0.kind == "SPAN_KIND_INTERNAL" && $0.traceId == checkout.traceId })
            let failed = try #require(calls.first { $0.name == "GET /outage" })
            #expect(failed.events?.contains { $0.name == "exception" } == true)
            #expect(failed.attributes?["rebound.chain"] == chain)
            for call in calls {
                let attempts = spans.filter { $0.parentSpanId == call.spanId }
                #expect(attempts.count == (call.spanId == failed.spanId ? Scenario.maxAttempts : 1))
                #expect(attempts.allSatisfy { $0.kind == "SPAN_KIND_CLIENT" && $0.name == call.name })
            }
            let outageAttempts = spans.filter { $0.parentSpanId == failed.spanId }
            #expect(
                Set(outageAttempts.compactMap { $0.attributes?["http.request.resend_count"] })
                    == Set((1..<Scenario.maxAttempts).map { "\($0)" }))
            #expect(outageAttempts.allSatisfy { $0.attributes?["error.type"] == "503" })

            // Metrics: the pipeline's counters, and a timer as a histogram in seconds.
            let metrics = items.filter { $0.signal == "metric" }
            let failures = metrics.filter { $0.name == "rebound_failures_total" && $0.attributes?["chain"] == chain }
            #expect(failures.last?.value == 1)
            let attempts = metrics.filter { $0.name == "rebound_attempts_total" }
            #expect(attempts.last { $0.attributes?["outcome"] == "success" }?.value == 2)
            #expect(attempts.last { $0.attributes?["outcome"] == "failure" }?.value == Double(Scenario.maxAttempts))
            // The pipeline's http.client.request.duration: one point per attribute set, each
            // cumulative, so the last export of each holds every attempt with those attributes.
            let durations = metrics.filter { $0.name == "http.client.request.duration" }
            #expect(!durations.isEmpty)
            #expect(durations.allSatisfy { $0.type == "histogram" && $0.bounds == OTLPExport.durationBuckets })
            var attemptsBySet: [[String: String]: Int] = [:]
            for point in durations {
                let set = point.attributes ?? [:]
                attemptsBySet[set] = max(attemptsBySet[set] ?? 0, point.count ?? 0)
            }
            #expect(attemptsBySet.values.reduce(0, +) == 2 + Scenario.maxAttempts)
            #expect(attemptsBySet.first { $0.key["http.response.status_code"] == "503" }?.value == Scenario.maxAttempts)

            // Logs: the report, in the caller's trace, with its chain, context and build.
            let logs = items.filter { $0.signal == "log" }
            #expect(logs.count == 1)
            let report = try #require(logs.first)
            #expect(report.body == "non-fatal \(chain)")
            #expect(report.attributes?["rebound.chain"] == chain)
            #expect(report.attributes?["rebound.kind"] == "occurrence")
            #expect(report.attributes?["rebound.build"] == Scenario.build.description)
            #expect(report.attributes?["rebound.context.step"] == "outage")
            #expect(report.attributes?["rebound.context.password"] == ErrorContext.Value.redactionMarker)
            #expect(report.attributes?["code.file.path"]?.hasSuffix("Scenario.swift") == true)
            #expect(report.traceId == checkout.traceId)

            let received = receiver.text()
            for secret in Scenario.secrets {
                #expect(!received.contains(secret), "a secret reached the collector: \(secret)")
            }
        }

        @Test func aCollectorThatNeverAnswersDropsSpansBeyondItsQueueAndSaysSo() async throws {
            let transport = CurlTransport()
            defer { transport.shutdown() }
            let stalled = try await LoopbackServer.start(routes: [LoopbackRoute(pathPrefix: "/v1") { _ in .stall }])
            let diagnostics = CapturingLogHandler.Box()
            let export = try OTLPExport(
                configuration: .init(
                    endpoint: stalled.baseURL, serviceName: "export-tests", maximumQueuedSpans: 2,
                    scheduleDelay: .milliseconds(50), timeout: .seconds(1),
                    diagnosticLogger: Logger(label: "otel") { _ in CapturingLogHandler(box: diagnostics) }))
            let exporting = Task { try await export.run() }
            let scenario = try await Scenario.start(
                transport: transport, metricsFactory: export.metricsFactory, tracer: export.tracer)

            // Every call succeeds while the collector holds every export.
            for _ in 0..<20 {
                _ = try await scenario.api.send(Scenario.endpoint("/tasks", .listFailed))
            }
            let deadline = ContinuousClock.now + .seconds(30)
            func dropped() -> Int {
                diagnostics.lines.withLock { lines in
                    lines.compactMap { line in line.metadata["dropped_count"].flatMap { Int("\($0)") } }.reduce(0, +)
                }
            }
            while dropped() == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(dropped() > 0)
            export.shutdown()
            try await exporting.value
            try await scenario.stop()
            try await stalled.shutdown()
        }

        @Test func aCollectorThatIsDownFailsNoCallAndItsExportsAreLogged() async throws {
            let transport = CurlTransport()
            defer { transport.shutdown() }
            let diagnostics = CapturingLogHandler.Box()
            // Held bound and not listening for the whole test: no other test's server can be given it.
            let collector = try boundLoopbackSocket()
            defer { close(collector) }
            let export = try OTLPExport(
                configuration: .init(
                    endpoint: "http://127.0.0.1:\(try boundPort(of: collector))", serviceName: "export-tests",
                    scheduleDelay: .milliseconds(50), timeout: .seconds(1),
                    diagnosticLogger: Logger(label: "otel") { _ in CapturingLogHandler(box: diagnostics) }))
            let exporting = Task { try await export.run() }
            let scenario = try await Scenario.start(
                transport: transport, metricsFactory: export.metricsFactory, tracer: export.tracer)
            let reporter = NonFatalReporter(
                configuration: .init(build: Scenario.build), sinks: [OTLPReportSink(export: export)])

            _ = try await scenario.run(reporter: reporter)
            await reporter.shutdown()
            #expect(reporter.statistics.sinkFailures == 0)
            export.shutdown()
            try await exporting.value
            try await scenario.stop()
            #expect(diagnostics.lines.withLock { $0.contains { $0.message.hasPrefix("Failed to export") } })
        }

        @Test(arguments: [
            "127.0.0.1:4318", "ftp://127.0.0.1:4318", "http://", "http://user:sekret@127.0.0.1:4318",
            "http://127.0.0.1:4318?token=sekret",
        ])
        func anEndpointThatIsNotAnHTTPURLWithAHostIsRefusedWithoutQuotingIt(endpoint: String) {
            #expect {
                _ = try OTLPExport(configuration: .init(endpoint: endpoint, serviceName: "export-tests"))
            } throws: { error in
                "\(error)".contains("endpoint") && !"\(error)".contains("sekret")
            }
        }

        @Test func queueBoundsBelowOneAreRefused() {
            #expect(throws: OTLPExport.ConfigurationError.self) {
                _ = try OTLPExport(
                    configuration: .init(endpoint: "http://127.0.0.1:4318", serviceName: "t", maximumQueuedSpans: 0))
            }
        }
    }

    /// Runs `work` in an INTERNAL span of `tracer`, started at the top level.
    func withSpan<Result: Sendable>(
        _ name: String,
        tracer: any Tracer,
        _ work: () async throws -> Result
    ) async throws -> Result {
        func within<T: Tracer>(_ tracer: T) async throws -> Result {
            try await tracer.withSpan(name, context: .topLevel, ofKind: .internal) { _ in try await work() }
        }
        return try await within(tracer)
    }
#endif
