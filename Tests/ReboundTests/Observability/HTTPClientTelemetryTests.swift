import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import Rebound
import ReboundTesting
import Testing
import Tracing

@Suite("OpenTelemetry's HTTP-client conventions in spans, metrics and propagation")
struct HTTPClientTelemetryTests {
    static let secrets = ["Bearer top-secret-token", "session=cookie-secret", "query-secret", "key-secret"]

    /// A task fetched by id, with secrets in every place a request may carry them.
    static func getTask(_ id: Int) -> Endpoint<TaskItem, APIErrorCode> {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer top-secret-token"
        fields[.cookie] = "session=cookie-secret"
        return .get(
            "/tasks/\(id)", query: ["token": "query-secret", "api_key": "key-secret"], headerFields: fields,
            returning: TaskItem.self, errorCode: .listTasksFailed)
    }

    static func manager(
        _ transport: ScriptedTransport, tracer: InMemoryTracer? = nil, metrics: TestMetrics? = nil
    ) throws -> APIDataManager {
        try APIDataManager(
            baseURL: "https://api.example.com/v1", transport: transport, handlers: [temporaryHandler()],
            time: TestClock().timeSource, metricsFactory: metrics, tracer: tracer)
    }

    @Test func aCallIsAnInternalSpanWithAClientSpanPerAttemptAsItsChildren() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([.status(.badGateway), .json(#"{"id":7,"title":"t"}"#)])
        _ = try await Self.manager(transport, tracer: tracer).send(Self.getTask(7))

        let spans = tracer.finishedSpans
        let call = try #require(spans.first { $0.kind == .internal })
        let attempts = spans.filter { $0.kind == .client }
        #expect(spans.count == 3)
        #expect(call.operationName == "GET /v1/tasks/{}")
        #expect(attempts.map(\.operationName) == ["GET /v1/tasks/{}", "GET /v1/tasks/{}"])
        for attempt in attempts {
            #expect(attempt.context.inMemorySpanContext?.parentSpanID == call.context.inMemorySpanContext?.spanID)
            #expect(attempt.context.inMemorySpanContext?.traceID == call.context.inMemorySpanContext?.traceID)
            #expect(attempt.attributes["http.request.method"]?.toSpanAttribute() == "GET")
            #expect(attempt.attributes["server.address"]?.toSpanAttribute() == "api.example.com")
            #expect(attempt.attributes["server.port"]?.toSpanAttribute() == 443)
            #expect(attempt.attributes["url.template"]?.toSpanAttribute() == "/v1/tasks/{}")
            #expect(
                attempt.attributes["url.full"]?.toSpanAttribute()
                    == "https://api.example.com/v1/tasks/7?token=REDACTED&api_key=REDACTED")
        }
        #expect(attempts[0].attributes["http.response.status_code"]?.toSpanAttribute() == 502)
        #expect(attempts[0].attributes["error.type"]?.toSpanAttribute() == "502")
        #expect(attempts[0].attributes["rebound.chain"]?.toSpanAttribute() == "HT502")
        #expect(attempts[0].status?.code == .error)
        #expect(attempts[0].attributes["http.request.resend_count"] == nil)
        #expect(attempts[1].attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(attempts[1].attributes["error.type"] == nil)
        #expect(attempts[1].status == nil)
        #expect(attempts[1].attributes["http.request.resend_count"]?.toSpanAttribute() == 1)
    }

    @Test func aFailedCallsSpanHoldsItsChainAndTheRetriesDecidingHandlerAndWait() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([.status(.serviceUnavailable), .status(.notFound)])
        _ = await #expect(throws: APIError.self) {
            try await Self.manager(transport, tracer: tracer).send(Self.getTask(7))
        }

        let call = try #require(tracer.finishedSpans.first { $0.kind == .internal })
        #expect(call.attributes["rebound.chain"]?.toSpanAttribute() == "AP8-HT404")
        let retry = try #require(call.events.first)
        #expect(retry.attributes["rebound.handler"]?.toSpanAttribute() == "BackendTemporaryErrorHandler")
        #expect(retry.attributes["rebound.retry.delay"]?.toSpanAttribute() == 0.2)
    }

    @Test func eachAttemptCarriesItsOwnSpansContextInItsHeaderFields() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([.status(.badGateway), .json(#"{"id":7,"title":"t"}"#)])
        _ = try await Self.manager(transport, tracer: tracer).send(Self.getTask(7))

        let attempts = tracer.finishedSpans.filter { $0.kind == .client }
        let sent = transport.requests.map(\.request.headerFields)
        #expect(sent.count == 2)
        for (fields, span) in zip(sent, attempts) {
            let spanID = try #require(span.context.inMemorySpanContext?.spanID)
            #expect(fields[HTTPField.Name(InMemoryTracer.spanIDKey)!] == spanID)
            #expect(fields[HTTPField.Name(InMemoryTracer.traceIDKey)!] == span.context.inMemorySpanContext?.traceID)
            // One value per attempt: the second replaced the first's.
            #expect(fields[values: HTTPField.Name(InMemoryTracer.spanIDKey)!].count == 1)
        }
    }

    @Test func everyAttemptsDurationIsMeasuredWithTheConventionsAttributes() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport([.status(.badGateway), .json(#"{"id":7,"title":"t"}"#)])
        _ = try await Self.manager(transport, metrics: metrics).send(Self.getTask(7))

        let common = [("http.request.method", "GET"), ("server.address", "api.example.com"), ("server.port", "443")]
        let failed = try metrics.expectTimer(
            "http.client.request.duration",
            common + [("http.response.status_code", "502"), ("error.type", "502")])
        #expect(failed.values.count == 1)
        let succeeded = try metrics.expectTimer(
            "http.client.request.duration", common + [("http.response.status_code", "200")])
        #expect(succeeded.values.count == 1)
    }

    @Test func theWaitBeforeEachRetryAndTheBudgetsTokensAreMeasured() async throws {
        let metrics = TestMetrics()
        let budget = RetryBudget(name: "tasks", metricsFactory: metrics)
        let transport = ScriptedTransport([.status(.badGateway), .json(#"{"id":7,"title":"t"}"#)])
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: transport, handlers: [temporaryHandler(budget: budget)],
            time: TestClock().timeSource, metricsFactory: metrics)
        _ = try await api.send(Self.getTask(7))

        #expect(try metrics.expectTimer("rebound_retry_delay_seconds").values == [200_000_000])
        // Full (10), one failure (9), one success refunds 0.1.
        #expect(try metrics.expectGauge("rebound_retry_budget_tokens", [("budget", "tasks")]).values == [10, 9, 9.1])
    }

    @Test func aFailureWithoutAResponseIsTypedByItsNetworkCode() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([.fail(NetworkError(.timeout)), .fail(NetworkError(.cannotConnect))])
        let api = try APIDataManager(
            baseURL: "http://127.0.0.1:8080", transport: transport, limits: RequestLimits(maxAttempts: 1),
            time: TestClock().timeSource, metricsFactory: metrics, tracer: tracer)
        _ = await #expect(throws: APIError.self) { try await api.send(Self.getTask(1)) }

        let attempt = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(attempt.attributes["error.type"]?.toSpanAttribute() == "timeout")
        #expect(attempt.attributes["http.response.status_code"] == nil)
        #expect(attempt.attributes["server.port"]?.toSpanAttribute() == 8080)
        _ = try metrics.expectTimer(
            "http.client.request.duration",
            [
                ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "8080"),
                ("error.type", "timeout"),
            ])
    }

    @Test func noSecretReachesAnAttributeAnEventOrALabel() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let transport = ScriptedTransport([.status(.serviceUnavailable), .status(.notFound)])
        _ = await #expect(throws: APIError.self) {
            try await Self.manager(transport, tracer: tracer, metrics: metrics).send(Self.getTask(7))
        }
        // The request did carry them: the check below is not vacuous.
        #expect(transport.requests.first?.request.headerFields[.authorization] == "Bearer top-secret-token")
        #expect(transport.requests.first?.request.path?.contains("query-secret") == true)

        var texts: [String] = []
        for span in tracer.finishedSpans {
            texts.append(span.operationName)
            span.attributes.forEach { key, value in texts.append("\(key)=\(value)") }
            for event in span.events {
                texts.append(event.name)
                event.attributes.forEach { key, value in texts.append("\(key)=\(value)") }
            }
            texts += span.errors.map { "\($0.error)" }
        }
        for timer in metrics.timers { texts += [timer.label] + timer.dimensions.map { "\($0.0)=\($0.1)" } }
        for counter in metrics.counters { texts += [counter.label] + counter.dimensions.map { "\($0.0)=\($0.1)" } }
        #expect(texts.count > 20)
        for secret in Self.secrets + ["top-secret", "cookie-secret"] {
            #expect(!texts.contains { $0.contains(secret) }, "\(secret) leaked")
        }
    }
}

@Suite("The HTTP-client conventions' values")
struct HTTPClientConventionsValuesTests {
    @Test func anUnknownMethodIsOtherAndItsSpanIsNamedHTTP() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let transport = ScriptedTransport([.status(.ok)])
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: transport, time: TestClock().timeSource,
            metricsFactory: metrics, tracer: tracer)
        _ = try await api.send(
            Endpoint<TransportResponse, APIErrorCode>(
                raw: HTTPRequest.Method("PURGE")!, "/cache", errorCode: .listTasksFailed))

        let attempt = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(attempt.operationName == "HTTP /cache")
        #expect(attempt.attributes["http.request.method"]?.toSpanAttribute() == "_OTHER")
        #expect(attempt.attributes["http.request.method_original"]?.toSpanAttribute() == "PURGE")
        let durations = metrics.timers(label: "http.client.request.duration")
        #expect(durations.count == 1)
        #expect(durations.allSatisfy { $0.dimensions.contains { $0 == ("http.request.method", "_OTHER") } })
    }

    @Test func aPlainStringPathsQueryStaysOutOfTheTemplate() async throws {
        let tracer = InMemoryTracer()
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: ScriptedTransport([.tasks]), time: TestClock().timeSource,
            tracer: tracer)
        _ = try await api.send(
            Endpoint<[TaskItem], APIErrorCode>(.get, "/tasks?access_token=abc&flag", errorCode: .listTasksFailed))
        let attempt = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(attempt.operationName == "GET /tasks")
        #expect(
            attempt.attributes["url.full"]?.toSpanAttribute()
                == "https://api.example.com/tasks?access_token=REDACTED&REDACTED")
    }

    @Test func theExportersDurationBucketsAreTheConventionsAdvisedBoundariesInIncreasingOrder() {
        let buckets = TelemetryBuckets.requestDurationSeconds
        #expect(buckets == [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10])
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 })
    }
}
