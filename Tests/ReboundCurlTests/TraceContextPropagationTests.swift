import Foundation
import HTTPTypes
import InMemoryTracing
import Rebound
import ReboundCurl
import ReboundMockBackend
import Synchronization
import Testing
import Tracing

/// A tracer whose ids are W3C trace-context ids (32 and 16 lower-case hexadecimal digits) and
/// whose instrument writes `traceparent` as W3C Trace Context level 1 spells it: what swift-otel
/// does, without its dependency.
struct W3CTestTracer: Tracer {
    let spans: InMemoryTracer

    init() {
        let next = Atomic<UInt64>(0)
        spans = InMemoryTracer(
            idGenerator: .init(
                nextTraceID: { W3CTestTracer.hex(next.add(1, ordering: .relaxed).newValue, digits: 32) },
                nextSpanID: { W3CTestTracer.hex(next.add(1, ordering: .relaxed).newValue, digits: 16) }))
    }

    static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        spans.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    )
    where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    )
    where Carrier == Extract.Carrier {}
}

/// A `traceparent` value read as W3C Trace Context level 1 defines it.
struct TraceParent: Equatable {
    var traceID: String
    var parentID: String
    var sampled: Bool

    init?(_ value: String) {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        let isHex = { (text: String) in text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } }
        guard parts.count == 4, parts[0] == "00", parts[1].count == 32, parts[2].count == 16, parts[3].count == 2,
            parts.allSatisfy(isHex), parts[1] != String(repeating: "0", count: 32),
            parts[2] != String(repeating: "0", count: 16), let flags = UInt8(parts[3], radix: 16)
        else { return nil }
        traceID = parts[1]
        parentID = parts[2]
        sampled = flags & 1 == 1
    }
}

enum TraceTestError: Int, ErrorCode {
    static let domain = "TraceTestError"
    static let shortName = "TT"
    case fetchFailed = 1
}

@Suite("Trace context propagation over a real transport")
struct TraceContextPropagationTests {
    @Test func theServerReadsEachAttemptsTraceparentWithTheClientsTraceAndTheAttemptsSpan() async throws {
        let seen = Locked<[String]>([])
        let flaky = LoopbackRoute("GET", "/flaky/7") { request in
            let count = seen.withLock {
                $0.append(request.header("traceparent") ?? "")
                return $0.count
            }
            return count == 1 ? .respond(status: 503) : .respond(status: 200, body: Array("ok".utf8))
        }
        try await withLoopback(routes: [flaky]) { server, transport in
            let tracer = W3CTestTracer()
            let api = try APIDataManager(
                baseURL: server.baseURL, transport: transport,
                handlers: [
                    BackendTemporaryErrorHandler(configuration: .init(backoff: Backoff(base: .milliseconds(1))))
                ],
                tracer: tracer)
            _ = try await api.send(
                Endpoint<Void, TraceTestError>.get("/flaky/\(7)", errorCode: .fetchFailed))

            let received = seen.withLock { $0 }.map(TraceParent.init)
            let attempts = tracer.spans.finishedSpans.filter { $0.kind == .client }
            let call = try #require(tracer.spans.finishedSpans.first { $0.kind == .internal })
            #expect(received.count == 2)
            #expect(attempts.count == 2)
            for (parent, span) in zip(received, attempts) {
                let parent = try #require(parent, "not a W3C traceparent")
                #expect(parent.traceID == call.context.inMemorySpanContext?.traceID)
                #expect(parent.parentID == span.context.inMemorySpanContext?.spanID)
                #expect(parent.sampled)
            }
        }
    }
}
