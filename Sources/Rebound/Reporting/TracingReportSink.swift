public import Tracing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Adds a `rebound.nonfatal` event to the span of the code that recorded the error.
///
/// The reporter delivers a report under the service context that was current where the error was
/// recorded. If that context's span is still recording, the event goes on it; otherwise (the span
/// ended before delivery, there was none, or the tracer cannot look spans up) the sink starts a
/// tiny span named `rebound.nonfatal` under that context, adds the event, and ends it, so the
/// report still joins the recorder's trace when there is one.
///
/// | attribute | value |
/// |---|---|
/// | `rebound.chain` | the short chain |
/// | `rebound.chain.full` | the full chain |
/// | `rebound.kind` | `occurrence`, `repeats` or `drops` |
/// | `rebound.occurrences` | the occurrences the report stands for |
/// | `rebound.location` | `file:line` of the recording call |
/// | `rebound.build` | the build |
/// | `rebound.session` | the session |
///
/// The context is left out: spans are sampled and kept by other systems, and the chain is what
/// links a trace to the reports.
public struct TracingReportSink: ReportSink {
    /// The event's name, and the name of the span started when there is no span to add it to.
    static let eventName = "rebound.nonfatal"

    private let tracer: any Tracer

    /// Creates a sink that traces through `tracer`.
    ///
    /// - Parameter tracer: The tracer; `InstrumentationSystem.tracer` in an app, an in-memory
    ///   tracer in tests.
    public init(tracer: any Tracer) {
        self.tracer = tracer
    }

    public func receive(_ report: NonFatalReport) async throws {
        Self.add(Self.event(for: report), with: tracer)
    }

    /// The event for a report.
    static func event(for report: NonFatalReport) -> SpanEvent {
        var attributes = SpanAttributes()
        attributes["rebound.chain"] = report.chain
        attributes["rebound.chain.full"] = report.fullChain
        attributes["rebound.kind"] = report.kind.rawValue
        attributes["rebound.occurrences"] = report.occurrences
        attributes["rebound.location"] = report.location
        attributes["rebound.build"] = report.build.description
        attributes["rebound.session"] = report.session.uuidString
        return SpanEvent(name: eventName, attributes: attributes)
    }

    private static func add<T: Tracer>(_ event: SpanEvent, with tracer: T) {
        let context = ServiceContext.current
        if let context, let span = tracer.activeSpan(identifiedBy: context), span.isRecording {
            span.addEvent(event)
            return
        }
        let span = tracer.startSpan(eventName, context: context ?? .topLevel)
        span.addEvent(event)
        span.end()
    }
}
