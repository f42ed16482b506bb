import HTTPTypes
public import Logging
public import Metrics
public import Tracing

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends API calls through a transport and recovers from what it can: the API layer of an app.
///
/// For each call it builds the request, lets every handler
/// ``RecoverableErrorHandler/prepare(_:context:)`` it, sends it, and judges the answer. A failure is classified into Rebound's layers
/// (``NetworkError``; ``HTTPError``, under a ``BackendError`` when the body carries the backend's
/// error payload; ``JSONError``), then the handlers are asked in order. The first that answers
/// ``RecoveryDecision/didHandle(_:)`` gets the request sent again after its delay; when none can
/// help, the failure is wrapped into the caller's API error, with the endpoint's own code, and
/// thrown.
///
/// ```
///  send(endpoint) ─► prepare (every handler) ─► transport ─► 2xx ─► decode ─► Response
///                         ▲                          │ error, non-2xx, undecodable
///                         │                          ▼
///                         │               classify: NE | BE(HT) | HT | JS
///                         │                          ▼
///                         └── wait (≤ deadline) ◄── handlers in order: first didHandle
///                                                    │ none, attempts spent, deadline, cancelled
///                                                    ▼
///                                   throw APIError(endpoint.errorCode, cause: failure)
/// ```
///
/// Every call is bounded by ``RequestLimits``: attempts, an overall deadline for all attempts
/// and waits, and a per-attempt timeout. A cancelled task stops at once, even in the middle of a
/// wait. The final error carries the ``AttemptHistory`` as an attachment;
/// ``response(for:fileID:line:)`` returns it with a successful call's value.
///
/// ```swift
/// let api = try APIDataManager(
///     baseURL: "https://api.example.com",
///     transport: CurlTransport(),
///     handlers: [BackendTemporaryErrorHandler(), AuthRefreshHandler(store: store, refresher: refresher)]
/// )
/// let tasks = try await api.send(.get("/v1/tasks", returning: [Task].self, errorCode: APIErrorCode.listTasksFailed))
/// ```
public final class APIDataManager: Sendable {
    /// The transport requests go through.
    public let transport: any HTTPTransport
    /// The handlers, asked in this order.
    public let handlers: [any RecoverableErrorHandler]
    /// The limits of a call that has none of its own.
    public let limits: RequestLimits
    /// Reads the backend's error payload out of failed responses.
    public let backendErrorParser: (any BackendErrorParser)?
    /// Transport options of every attempt (the timeout is set per attempt from the limits).
    public let transportOptions: TransportOptions
    /// Receives what the decoding of resilient endpoints recovered from, for endpoints without an
    /// observer of their own.
    public let partialDecodingObserver: (any PartialDecodingObserver)?
    /// The clock of deadlines and waits and the date, handed to every handler.
    public let time: TimeSource
    /// Encodes the JSON bodies of endpoints built with `json:`.
    public let jsonEncoder: JSONEncoder
    /// Decodes the JSON answers of endpoints built with `returning:`.
    public let jsonDecoder: JSONDecoder

    /// Each handler with its name and hooks, read once: a handler's default name is its type's
    /// name, which is costly to look up on every failure.
    let participants: [Participant]
    /// The base URL's scheme and authority, checked once here, and its path without a final `/`:
    /// each call's request is built from them.
    let scheme: String
    let authority: String
    let basePath: String
    let logger: Logger
    let instruments: PipelineInstruments
    @usableFromInline
    let tracer: (any Tracer)?
    /// What writes each attempt's trace context into its header fields: the tracer given, or the
    /// process's instrument; `nil` when neither propagates anything.
    let propagator: (any Instrument)?
    /// Whether attempts have spans, propagate a context or are measured: otherwise they skip it all.
    let observesAttempts: Bool
    /// Whether calls have spans (there is a tracer) and events (there is a monitor): read on
    /// every call, as flags rather than by copying the optional tracer and monitor.
    let tracesCalls: Bool
    let monitorsCalls: Bool
    /// Hears every call's and attempt's events.
    public let monitor: (any APIEventMonitor)?
    /// The durations of hedged endpoints' successful attempts (``HedgingPolicy``).
    let latencies = EndpointLatencies()

    /// Creates a data manager for the API at `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: The API's root, such as `https://api.example.com/v2`; endpoint paths go under it.
    ///   - transport: How requests are sent.
    ///   - handlers: The recovery handlers, in the order they are asked.
    ///   - limits: The limits of calls that have none of their own.
    ///   - backendErrorParser: Reads the backend's error payload; `nil` reports statuses alone.
    ///   - transportOptions: Options of every attempt; the timeout comes from the limits.
    ///   - partialDecodingObserver: Receives the errors resilient endpoints recovered from, when
    ///     they have no observer of their own; `nil` leaves them to the calling task's
    ///     ``ResilientDecoding/observer``.
    ///   - time: Measures deadlines and waits and gives the date; the handlers get it through
    ///     ``AttemptContext/time``. Inject `TestClock().timeSource` in tests.
    ///   - jsonEncoder: Encodes JSON bodies, with the strategies the API needs.
    ///   - jsonDecoder: Decodes JSON answers, with the strategies the API needs.
    ///   - logger: One line per attempt. Secrets are never logged: only methods, paths without
    ///     their query, statuses, chains, handler names and delays.
    ///   - metricsFactory: Where the counters go; `nil` uses the process's `MetricsSystem`.
    ///   - tracer: Where spans go (an INTERNAL span per call, a CLIENT span per attempt as its
    ///     child, docs/observability.md); `nil` uses the process's `InstrumentationSystem`. Each
    ///     attempt's request carries the attempt span's context, injected by this tracer (or by the
    ///     process's instrument, with the task's context, when there is no tracer).
    ///   - monitor: Hears every call's and attempt's events (``APIEvent``); `nil` costs one check
    ///     per event.
    /// - Throws: ``NetworkErrorCode/invalidURL`` when `baseURL` is not an http(s) URL with a host,
    ///   or carries user information, a query or a fragment, which no request would send (put
    ///   credentials in a handler, queries in the endpoints).
    public init(
        baseURL: String,
        transport: any HTTPTransport,
        handlers: [any RecoverableErrorHandler] = [],
        limits: RequestLimits = RequestLimits(),
        backendErrorParser: (any BackendErrorParser)? = JSONBackendErrorParser(),
        transportOptions: TransportOptions = TransportOptions(),
        partialDecodingObserver: (any PartialDecodingObserver)? = nil,
        time: TimeSource = .system,
        jsonEncoder: JSONEncoder = JSONEncoder(),
        jsonDecoder: JSONDecoder = JSONDecoder(),
        logger: Logger = Logger(label: "rebound.api", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsFactory: (any MetricsFactory)? = nil,
        tracer: (any Tracer)? = nil,
        monitor: (any APIEventMonitor)? = nil
    ) throws(NetworkError) {
        guard let components = URLComponents(string: baseURL),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw NetworkError(.invalidURL, reason: "The base URL must be an http or https URL with a host.")
        }
        // Each would be dropped without a word: requests are built from the scheme, the authority
        // and the path alone. (The URL itself is not quoted: its user information is a secret.)
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil,
            components.percentEncodedQuery == nil, components.percentEncodedFragment == nil
        else {
            throw NetworkError(
                .invalidURL,
                reason:
                    "The base URL must not carry user information, a query or a fragment: requests would not send them."
            )
        }
        self.scheme = scheme
        self.authority = components.port.map { "\(host):\($0)" } ?? host
        self.basePath =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        self.transport = transport
        self.handlers = handlers
        self.participants = handlers.map(Participant.init)
        self.limits = limits
        self.backendErrorParser = backendErrorParser
        self.transportOptions = transportOptions
        self.partialDecodingObserver = partialDecodingObserver
        self.time = time
        self.jsonEncoder = jsonEncoder
        self.jsonDecoder = jsonDecoder
        self.logger = logger
        self.instruments = PipelineInstruments(factory: metricsFactory ?? MetricsSystem.factory)
        // Resolved once: looking the tracer up and opening a span on every call costs more than a
        // whole successful call otherwise does. Without a tracer there is no span at all.
        let resolved = tracer ?? InstrumentationSystem.tracer
        self.tracer = resolved is NoOpTracer ? nil : resolved
        let instrument = InstrumentationSystem.instrument
        self.propagator = self.tracer ?? (instrument is NoOpTracer || instrument is NoOpInstrument ? nil : instrument)
        self.monitor = monitor
        self.observesAttempts = self.tracer != nil || propagator != nil || instruments.isEnabled
        self.tracesCalls = self.tracer != nil
        self.monitorsCalls = monitor != nil
    }

    /// Sends an API call, recovering from what the handlers can, and returns its decoded result.
    ///
    /// It is `@concurrent`: called from an actor (an app's main actor, say), the call leaves it,
    /// so decoding and the handlers' bookkeeping never block it.
    ///
    /// - Parameters:
    ///   - endpoint: The call.
    ///   - fileID: Where the call is made; leave the default. The caller's error records it.
    ///   - line: Where the call is made; leave the default.
    /// - Returns: The decoded response; for an endpoint that opted in to stale answers
    ///   (``EndpointOptions/staleIfError``), possibly an earlier one given in place of a failure
    ///   (``response(for:fileID:line:)`` says so).
    /// - Throws: The caller's API error, `LayerError(endpoint.errorCode, cause: failure)`, carrying
    ///   the ``AttemptHistory``. The cause is the last attempt's failure, or a ``RecoveryError``
    ///   (retries exhausted, deadline exceeded, cancelled, or a handler's own failure) over it.
    @inlinable
    @concurrent
    public func send<Response, Code>(
        _ endpoint: Endpoint<Response, Code>,
        fileID: String = #fileID,
        line: Int = #line
    ) async throws(LayerError<Code>) -> Response {
        try await call(endpoint, fileID: fileID, line: line).value
    }

    /// Sends an API call like ``send(_:fileID:line:)``, and returns its value with the answer's
    /// head and transfer facts and the history of its attempts.
    ///
    /// ```swift
    /// let answer = try await api.response(for: .get("/v1/tasks", returning: [TaskItem].self, errorCode: APIErrorCode.listTasksFailed))
    /// print(answer.history.summary)   // #1 HT503 → BackendTemporaryErrorHandler, #2 (after 0.2 s) 200
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: The call.
    ///   - fileID: Where the call is made; leave the default.
    ///   - line: Where the call is made; leave the default.
    /// - Returns: The decoded value, the response it was read from, and every attempt; for an
    ///   earlier answer given in place of a failure, its ``APIResponse/staleness``.
    /// - Throws: As ``send(_:fileID:line:)``.
    @inlinable
    @concurrent
    public func response<Response, Code>(
        for endpoint: Endpoint<Response, Code>,
        fileID: String = #fileID,
        line: Int = #line
    ) async throws(LayerError<Code>) -> APIResponse<Response> {
        try await call(endpoint, fileID: fileID, line: line)
    }

    /// A call from start to end: this part, the only one that knows `Response` and `Code`, is
    /// inlinable so that it is specialized in the caller's module; the attempts run in the
    /// loop, which is not generic (an unspecialized generic async function looks up the metadata
    /// of its generic types again on every resumption).
    @inlinable
    nonisolated(nonsending) func call<Response, Code>(
        _ endpoint: Endpoint<Response, Code>,
        fileID: String,
        line: Int
    ) async throws(LayerError<Code>) -> APIResponse<Response> {
        let request: CallRequest
        do {
            request = try CallRequest(endpoint, encoder: jsonEncoder)
        } catch {
            throw failure(of: endpoint, cause: error, history: [], fileID: fileID, line: line, span: nil)
        }
        // Decoding runs inside the loop, as part of judging an attempt: an undecodable answer is
        // a failed attempt that handlers may recover from.
        var value: Response?
        let decoder = jsonDecoder
        // The closure takes the endpoint's decoding alone: capturing the endpoint would copy it.
        let read = endpoint.decode
        let (result, history, span) = await run(request) { response throws(JSONError) in
            value = try self.decode(response, with: read, decoder: decoder)
        }
        defer { span?.span.end() }
        // Consumed, not copied: the response moves into the caller's value.
        switch consume result {
        case .success(let response):
            // Taken, not copied: a copy of the value would be made and the original destroyed.
            if let value = value.take() {
                return APIResponse(value: value, response: response, history: history)
            }
            throw failure(
                of: endpoint, cause: RecoveryError(.retriesExhausted), history: history, fileID: fileID, line: line,
                span: span)
        case .failure(let cause):
            if let stale = staleAnswer(for: request, failure: cause, history: history),
                let value = try? decode(stale.answer.response, with: endpoint, decoder: decoder)
            {
                let staleness = Staleness(age: stale.answer.age, handler: stale.handler, failure: cause)
                answeredStale(
                    request, errorCode: endpoint.errorCode, failure: cause, staleness: staleness, history: history,
                    span: span)
                return APIResponse(
                    value: value, response: stale.answer.response, history: history, staleness: staleness)
            }
            throw failure(of: endpoint, cause: cause, history: history, fileID: fileID, line: line, span: span)
        }
    }

    /// The caller's API error for a failed call: the one exit of every failure, counted, logged
    /// and recorded on the span.
    @usableFromInline
    func failure<Response, Code>(
        of endpoint: Endpoint<Response, Code>,
        cause: any Error,
        history: [AttemptRecord],
        fileID: String,
        line: Int,
        span: CallSpan?
    ) -> LayerError<Code> {
        let label = Endpoint<Response, Code>.label(method: endpoint.method, path: endpoint.path)
        var error = LayerError<Code>(
            endpoint.errorCode,
            cause: cause,
            context: ["endpoint": "\(label)", "attempts": "\(history.count)"],
            fileID: fileID,
            line: line
        )
        error.attachments.append(AttemptHistory(attempts: history))
        let chain = error.shortChain
        instruments.recordFailure(chain: chain)
        if let span = span?.span {
            span.recordError(error)
            span.attributes["rebound.chain"] = chain
        }
        logger.warning(
            "request failed",
            metadata: ["endpoint": "\(label)", "chain": "\(chain)", "attempts": "\(history.count)"]
        )
        return error
    }

    /// Decodes a successful response, with this data manager's observer of partial decoding
    /// installed for resilient endpoints that have none of their own.
    @inlinable
    func decode<Response, Code>(
        _ response: TransportResponse,
        with endpoint: Endpoint<Response, Code>,
        decoder: JSONDecoder
    ) throws(JSONError) -> Response {
        try decode(response, with: endpoint.decode, decoder: decoder)
    }

    @inlinable
    func decode<Response>(
        _ response: TransportResponse,
        with read: (TransportResponse, JSONDecoder) throws(JSONError) -> Response,
        decoder: JSONDecoder
    ) throws(JSONError) -> Response {
        guard let partialDecodingObserver else { return try read(response, decoder) }
        let result = ResilientDecoding.$observer.withValue(partialDecodingObserver) {
            Result { () throws(JSONError) in try read(response, decoder) }
        }
        return try result.get()
    }
}

/// A successful call's value, with the response it was read from and the history of its attempts.
public struct APIResponse<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The response the value was read from: its status, header fields and ``TransferInfo``.
    public var response: TransportResponse
    /// Every attempt of the call: the successful one last, or, for a stale answer, the failed ones.
    public var history: AttemptHistory
    /// Set when the call failed and a handler answered it with an earlier answer
    /// (``StaleIfErrorHandler``): how old the value is, and the failure it stands in for; `nil`
    /// for a fresh answer.
    public var staleness: Staleness?

    @usableFromInline
    init(value: Value, response: TransportResponse, history: [AttemptRecord], staleness: Staleness? = nil) {
        self.value = value
        self.response = response
        self.history = AttemptHistory(attempts: history)
        self.staleness = staleness
    }
}
