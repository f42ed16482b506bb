import HTTPTypes
import Tracing

/// One attempt as OpenTelemetry's HTTP-client conventions see it: a CLIENT span, child of the
/// call's INTERNAL span, from sending to the judged answer; the trace context written into the
/// request; and the attempt's `http.client.request.duration`.
///
/// The pipeline makes one only when something listens (a tracer, a propagating instrument, a
/// metrics backend): otherwise an attempt costs one check of a flag. An object, so that the
/// optional one an attempt keeps is a reference: an optional struct of this size is copied and
/// destroyed through its type's metadata.
final class AttemptTelemetry {
    private let span: (any Span)?
    private let started: Duration
    private let method: String
    private let server: (address: String, port: Int)

    /// Starts the attempt's span and writes its trace context (W3C `traceparent`/`tracestate`
    /// with swift-otel) into `request`'s header fields.
    ///
    /// - Parameters:
    ///   - manager: The data manager, whose tracer, instrument and clock are used.
    ///   - parent: The call's span.
    ///   - template: The endpoint's path template (`/v1/tasks/{}`), under the base path.
    ///   - id: The attempt.
    ///   - request: The request about to be sent.
    init(
        _ manager: APIDataManager, parent: (any Span)?, template: String, id: AttemptID,
        request: inout HTTPRequest
    ) {
        method = HTTPClientConventions.method(request.method)
        server = HTTPClientConventions.server(authority: request.authority ?? "", scheme: request.scheme ?? "https")
        if let tracer = manager.tracer {
            let name = HTTPClientConventions.spanName(method: request.method, template: template)
            let span = Self.startSpan(by: tracer, name, parent: parent?.context ?? .current ?? .topLevel)
            if span.isRecording {
                var attributes = SpanAttributes()
                attributes["http.request.method"] = method
                if method == "_OTHER" { attributes["http.request.method_original"] = request.method.rawValue }
                attributes["server.address"] = server.address
                attributes["server.port"] = server.port
                attributes["url.full"] = HTTPClientConventions.redactedURL(
                    scheme: request.scheme ?? "", authority: request.authority ?? "", path: request.path ?? "")
                attributes["url.template"] = template
                attributes["rebound.attempt"] = id.attempt
                if id.attempt > 1 { attributes["http.request.resend_count"] = id.attempt - 1 }
                span.attributes.merge(attributes)
            }
            manager.propagator?.inject(span.context, into: &request.headerFields, using: HTTPFieldsInjector())
            self.span = span
        } else {
            if let propagator = manager.propagator, let context = ServiceContext.current {
                propagator.inject(context, into: &request.headerFields, using: HTTPFieldsInjector())
            }
            span = nil
        }
        started = manager.time.now()
    }

    /// Ends the span with the answer, and records the attempt's duration.
    ///
    /// - Parameters:
    ///   - manager: The data manager, whose instruments and clock are used.
    ///   - response: The response, when one arrived.
    ///   - error: The attempt's failure, classified; `nil` when it succeeded.
    func end(_ manager: APIDataManager, response: TransportResponse?, error: (any Error)?) {
        let status = response?.status.code
        let errorType = HTTPClientConventions.errorType(status: status, error: error)
        manager.instruments.recordRequestDuration(
            manager.time.now() - started, method: method, server: server, status: status, errorType: errorType)
        guard let span else { return }
        if span.isRecording {
            if let status { span.attributes["http.response.status_code"] = status }
            if let version = response?.info.httpVersion { span.attributes["network.protocol.version"] = version }
            if let errorType {
                span.attributes["error.type"] = errorType
                // A caller's cancellation is not the request's error.
                if errorType != NetworkErrorCode.cancelled.name { span.setStatus(SpanStatus(code: .error)) }
            }
            if let error { span.attributes["rebound.chain"] = ErrorChain(error).short }
        }
        span.end()
    }

    private static func startSpan<T: Tracer>(by tracer: T, _ name: String, parent: ServiceContext) -> any Span {
        tracer.startSpan(name, context: parent, ofKind: .client)
    }
}

extension AttemptTelemetry {
    /// Ends the span with how the attempt came out.
    func end(_ manager: APIDataManager, _ outcome: APIDataManager.AttemptResult) {
        switch outcome {
        case .success(let response): end(manager, response: response, error: nil)
        case .failure(let error, let response): end(manager, response: response, error: error)
        }
    }
}
