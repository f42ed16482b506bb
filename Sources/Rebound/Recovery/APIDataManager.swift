public import Foundation
public import HTTPTypes
public import Logging
public import Metrics
public import Tracing

/// Sends API calls through a transport and recovers from what it can: the API layer of an app.
///
/// For each call it builds the request, lets every handler ``RecoverableErrorHandler/prepare(_:)``
/// it, sends it, and judges the answer. A failure is classified into Rebound's layers
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
/// wait. The final error carries the ``AttemptHistory`` as an attachment.
///
/// ```swift
/// let api = try APIDataManager(
///     baseURL: "https://api.example.com",
///     transport: CurlTransport(),
///     handlers: [BackendTemporaryErrorHandler(), AuthRefreshHandler(store: store, refresher: refresher)]
/// )
/// let tasks = try await api.send(Endpoint<[Task], APIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed))
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

    /// The handlers' names, read once: a handler's default name is its type's name, which is
    /// costly to look up on every failure.
    private let handlerNames: [String]
    /// The handlers whose ``RecoverableErrorHandler/prepare(_:)`` may change a request, in order.
    private let preparers: [HookCall]
    /// Whether no handler's ``RecoverableErrorHandler/prepare(_:)`` can suspend, so that a first
    /// attempt starts when its call does.
    private let preparesWithoutSuspending: Bool
    /// The handlers whose ``RecoverableErrorHandler/attemptDidSucceed(_:)`` does something, in order.
    private let successObservers: [HookCall]
    /// The base URL's scheme and authority, checked once here, and its path without a final `/`:
    /// each call's request is built from them.
    private let scheme: String
    private let authority: String
    private let basePath: String
    /// See ``request(for:)``.
    private let lastRequest = Locked<LastRequest?>(nil)
    private let clock: PipelineClock
    private let logger: Logger
    private let instruments: PipelineInstruments
    @usableFromInline
    let tracer: (any Tracer)?

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
    ///   - clock: Measures deadlines and waits; inject a test clock in tests.
    ///   - logger: One line per attempt. Secrets are never logged: only methods, paths without
    ///     their query, statuses, chains, handler names and delays.
    ///   - metricsFactory: Where the counters go; `nil` uses the process's `MetricsSystem`.
    ///   - tracer: Where spans go (one per call, an event per attempt); `nil` uses the process's
    ///     `InstrumentationSystem`.
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
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "rebound.api", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsFactory: (any MetricsFactory)? = nil,
        tracer: (any Tracer)? = nil
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
        self.handlerNames = handlers.map(\.name)
        // A call to a hook that does nothing still costs an async call through an existential on
        // every attempt; the built-in handlers say which of theirs do nothing.
        self.preparers = handlers.compactMap { handler in
            guard let builtIn = handler as? any HandlerHookUsage else { return .asynchronous(handler) }
            guard builtIn.usesPrepare else { return nil }
            return builtIn.preparesSynchronously ? .synchronous(builtIn) : .asynchronous(handler)
        }
        self.preparesWithoutSuspending = preparers.allSatisfy {
            if case .synchronous = $0 { return true }
            return false
        }
        self.successObservers = handlers.compactMap { handler in
            guard let builtIn = handler as? any HandlerHookUsage else { return .asynchronous(handler) }
            return builtIn.usesAttemptDidSucceed ? .synchronous(builtIn) : nil
        }
        self.limits = limits
        self.backendErrorParser = backendErrorParser
        self.transportOptions = transportOptions
        self.partialDecodingObserver = partialDecodingObserver
        self.clock = PipelineClock(clock)
        self.logger = logger
        self.instruments = PipelineInstruments(factory: metricsFactory ?? MetricsSystem.factory)
        // Resolved once: looking the tracer up and opening a span on every call costs more than a
        // whole successful call otherwise does. Without a tracer there is no span at all.
        let resolved = tracer ?? InstrumentationSystem.tracer
        self.tracer = resolved is NoOpTracer ? nil : resolved
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
    /// - Returns: The decoded response.
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
        // Inlinable, so that this part, the only one that knows `Response` and `Code`, is
        // specialized in the caller's module. The loop itself is not generic: an unspecialized
        // generic async function looks up the metadata of its generic types again and again, on
        // every call and resumption. It decodes and fails through these two closures, written out
        // as arguments so that the variables they set stay off the heap (local functions would box
        // them).
        let call = Call(
            method: endpoint.method,
            path: endpoint.path,
            headerFields: endpoint.headerFields,
            body: endpoint.body,
            limits: endpoint.limits ?? limits
        )
        var value: Response?
        var failure: LayerError<Code>?
        await run(
            call,
            endpointName: endpoint.errorCode.name,
            decode: { response in value = try decode(response, with: endpoint) },
            failed: { cause, history, label, span in
                failure = self.failure(
                    of: endpoint, cause: cause, history: history, label: label, fileID: fileID, line: line, span: span)
            }
        )
        if let failure { throw failure }
        // `run` either decoded a value or failed; should that ever not hold, the caller gets an
        // error, not a crash.
        // Taken, not copied: a copy of the response would be made and the original destroyed.
        guard let value = value.take() else {
            throw self.failure(
                of: endpoint, cause: RecoveryError(.retriesExhausted), history: [], label: call.label, fileID: fileID,
                line: line, span: nil)
        }
        return value
    }

    // MARK: - The loop

    /// What the loop needs of an endpoint: everything but its types.
    @usableFromInline
    struct Call {
        let method: HTTPRequest.Method
        let path: String
        let headerFields: HTTPFields
        let body: Data?
        let limits: RequestLimits

        @usableFromInline
        init(method: HTTPRequest.Method, path: String, headerFields: HTTPFields, body: Data?, limits: RequestLimits) {
            self.method = method
            self.path = path
            self.headerFields = headerFields
            self.body = body
            self.limits = limits
        }

        /// `GET /v1/tasks`, without the query: queries may carry secrets. Made only when a span, a
        /// log line or an error needs it.
        @usableFromInline
        var label: String { endpointLabel(method: method, path: path) }
    }

    /// The request last built for a call without header fields of its own, before any handler
    /// prepared it.
    private struct LastRequest {
        var method: HTTPRequest.Method
        var path: String
        var request: HTTPRequest
    }

    /// The request a call starts from: the last one built when the call is to the same endpoint
    /// (method and path, no header fields of its own), else a new one.
    ///
    /// Building a request validates its method, scheme, authority and path, and a request's
    /// destruction goes through generic value witnesses: together about 1,400 instructions, a
    /// fifth of a successful call (docs/performance.md). An app that calls one endpoint again and
    /// again (a list it refreshes, a status it polls) pays that once. The copy handed out is a
    /// value: what handlers add to it never reaches the kept one.
    private func request(for call: Call) -> HTTPRequest {
        let reusable = call.headerFields.isEmpty
        if reusable,
            let kept = lastRequest.withLock({ last -> HTTPRequest? in
                guard let last, last.path == call.path, last.method == call.method else { return nil }
                return last.request
            })
        {
            return kept
        }
        // Made whole by the initialiser: changing a copy of a template request instead copies
        // and replaces its pseudo-header fields through generic value witnesses, which cost
        // about 1,300 instructions per call more.
        let request = HTTPRequest(
            method: call.method,
            scheme: scheme,
            authority: authority,
            path: basePath + call.path,
            headerFields: call.headerFields
        )
        if reusable {
            lastRequest.withLock { $0 = LastRequest(method: call.method, path: call.path, request: request) }
        }
        return request
    }

    /// A handler whose hook (``RecoverableErrorHandler/prepare(_:)`` or
    /// ``RecoverableErrorHandler/attemptDidSucceed(_:)``) is called on every attempt, and how.
    private enum HookCall {
        /// A built-in handler whose hook never suspends: its synchronous twin is called.
        case synchronous(any HandlerHookUsage)
        case asynchronous(any RecoverableErrorHandler)
    }

    private enum Outcome {
        /// `decode` took the response; its status is kept for the log and the span.
        case success(status: Int)
        case failure(any Error, TransportResponse?)

        var isSuccess: Bool {
            if case .success = self { return true }
            return false
        }
    }

    /// Runs a call, in a client span named after it when there is a tracer.
    ///
    /// Inlinable, like ``send(_:fileID:line:)``, so that its closures stay on the stack and no
    /// async call is added between the caller and the loop.
    @inlinable
    nonisolated(nonsending) func run(
        _ call: Call,
        endpointName: @autoclosure () -> String,
        decode: (TransportResponse) throws -> Void,
        failed: (_ cause: any Error, _ history: [AttemptRecord], _ label: String, _ span: (any Span)?) -> Void
    ) async {
        guard let tracer else {
            return await runAttempts(call, span: nil, endpointName: endpointName(), decode: decode, failed: failed)
        }
        await Self.traced(by: tracer, call.label) { span in
            await runAttempts(call, span: span, endpointName: endpointName(), decode: decode, failed: failed)
        }
    }

    /// Runs a call's attempts until one succeeds (after `decode` took its response) or the call
    /// fails (after `failed` was told why, once).
    ///
    /// It and the other steps of a call are `nonisolated(nonsending)`: they run where ``send(_:fileID:line:)``
    /// runs, which is `@concurrent` and so always on the global executor, never on the caller's
    /// actor. Each `await` of a plain `async` function costs a switch to the global
    /// executor on entry and another back on return; on the success path there were about ten.
    @usableFromInline
    nonisolated(nonsending) func runAttempts(
        _ call: Call,
        span: (any Span)?,
        endpointName: @autoclosure () -> String,
        decode: (TransportResponse) throws -> Void,
        failed: (_ cause: any Error, _ history: [AttemptRecord], _ label: String, _ span: (any Span)?) -> Void
    ) async {
        let limits = call.limits
        let callStarted = clock.now()
        let deadline = callStarted + limits.deadline
        var request = self.request(for: call)
        var history: [AttemptRecord] = []
        var delayBefore = Duration.zero
        var lastFailure: (any Error)?

        func fail(_ cause: any Error) {
            failed(cause, history, call.label, span)
        }

        let maxAttempts = max(1, limits.maxAttempts)
        for attempt in 1...maxAttempts {
            if Task.isCancelled {
                return fail(RecoveryError(.cancelled, cause: lastFailure ?? CancellationError()))
            }
            do {
                // Preparing changes the request for good: what a handler adds once (an idempotency
                // key) stays the same on every attempt, and what it sets each time (a credential)
                // is replaced. Handlers whose `prepare` does nothing are not asked. (By index: a
                // `for … in` loop copies each element, and a copied handler existential costs
                // retains and, for a struct, its value witnesses.)
                for index in preparers.indices {
                    switch preparers[index] {
                    case .synchronous(let handler):
                        try handler.prepareSynchronously(&request)
                    case .asynchronous(let handler) where clock.isReal:
                        guard let prepared = try await prepare(request, with: handler, deadline: deadline) else {
                            return fail(
                                RecoveryError(
                                    .deadlineExceeded, cause: lastFailure,
                                    reason:
                                        "The deadline passed while \(handler.name) was preparing attempt \(attempt)."
                                )
                            )
                        }
                        request = prepared
                    case .asynchronous(let handler):
                        try await handler.prepare(&request)
                    }
                }
            } catch {
                return fail(handlerFailure(error))
            }
            let prepared = request
            // A first attempt whose preparing could not suspend starts when the call did: reading
            // the clock again would measure the nanoseconds of synchronous work in between.
            let started = attempt == 1 && preparesWithoutSuspending ? callStarted : clock.now()
            let timeLeft = deadline - started
            guard timeLeft > .zero else {
                return fail(
                    RecoveryError(
                        .deadlineExceeded, cause: lastFailure, reason: "The deadline passed before attempt \(attempt).")
                )
            }
            var options = transportOptions
            options.timeout = min(limits.attemptTimeout, timeLeft)

            let outcome = await send(prepared, body: call.body, options: options, decode: decode)
            instruments.recordAttempt(endpoint: endpointName(), succeeded: outcome.isSuccess)

            switch outcome {
            case .success(let status):
                for index in successObservers.indices {
                    switch successObservers[index] {
                    case .synchronous(let handler):
                        handler.attemptDidSucceedSynchronously(prepared)
                    case .asynchronous(let handler) where clock.isReal:
                        await observeSuccess(of: prepared, with: handler, deadline: deadline, label: call.label)
                    case .asynchronous(let handler):
                        await handler.attemptDidSucceed(prepared)
                    }
                }
                // A success records its duration only for a span: it costs a clock reading.
                if let span, span.isRecording {
                    let record = AttemptRecord(
                        number: attempt,
                        status: status,
                        error: nil,
                        delayBefore: delayBefore,
                        duration: clock.now() - started
                    )
                    span.addEvent(attemptEvent(record))
                }
                logger.debug(
                    "attempt succeeded",
                    metadata: [
                        "endpoint": "\(call.label)", "attempt": "\(attempt)", "status": "\(status)",
                    ]
                )
                return

            case .failure(let error, let response):
                lastFailure = error
                var record = AttemptRecord(
                    number: attempt,
                    status: response?.status.code,
                    error: error.shortChain,
                    delayBefore: delayBefore,
                    duration: clock.now() - started
                )
                defer { if let span, span.isRecording { span.addEvent(attemptEvent(record)) } }
                if error.firstError(in: NetworkErrorCode.self)?.code == .cancelled {
                    history.append(record)
                    return fail(error)
                }
                if Task.isCancelled {
                    // Cancelled after the answer came, before any wait: no retry, and the chain says why.
                    history.append(record)
                    return fail(RecoveryError(.cancelled, cause: error, reason: "Cancelled before retrying."))
                }
                if attempt == maxAttempts {
                    history.append(record)
                    logAttempt(call, record)
                    // "Retries exhausted" only when a handler was retrying this very failure: the
                    // previous attempt failed the same way and was recovered. A different last
                    // failure (503, then 404) is just itself.
                    let previous = history.dropLast().last
                    let wasRecovering = previous?.handler != nil && previous?.error == record.error
                    return fail(wasRecovering ? RecoveryError(.retriesExhausted, cause: error) : error)
                }
                let failure = FailedAttempt(
                    error: error,
                    request: prepared,
                    body: call.body,
                    response: response,
                    attempt: attempt,
                    timeLeft: deadline - clock.now(),
                    delayBefore: delayBefore,
                    history: history
                )
                var chosen: (name: String, plan: RetryPlan)?
                for (handler, name) in zip(handlers, handlerNames) {
                    let decision: RecoveryDecision
                    do {
                        guard let decided = try await recover(from: failure, with: handler, deadline: deadline) else {
                            history.append(record)
                            logAttempt(call, record)
                            return fail(
                                RecoveryError(
                                    .deadlineExceeded, cause: error,
                                    reason: "The deadline passed while \(name) was recovering.")
                            )
                        }
                        decision = decided
                    } catch {
                        history.append(record)
                        logAttempt(call, record)
                        return fail(handlerFailure(error))
                    }
                    if case .didHandle(let plan) = decision {
                        chosen = (name, plan)
                        break
                    }
                }
                guard let chosen else {
                    history.append(record)
                    logAttempt(call, record)
                    return fail(error)
                }
                let left = deadline - clock.now()
                // Waiting up to the deadline itself would leave no time to send again.
                if chosen.plan.delay >= left {
                    history.append(record)
                    logAttempt(call, record)
                    return fail(
                        RecoveryError(
                            .deadlineExceeded,
                            cause: error,
                            reason: "Waiting \(chosen.plan.delay) to retry would pass the deadline (\(left) left)."
                        )
                    )
                }
                record.handler = chosen.name
                history.append(record)
                logAttempt(call, record, delay: chosen.plan.delay)
                instruments.recordRecovery(handler: chosen.name)
                if chosen.plan.delay > .zero {
                    do {
                        try await clock.sleep(chosen.plan.delay)
                    } catch {
                        return fail(
                            RecoveryError(.cancelled, cause: failure.error, reason: "Cancelled while waiting to retry.")
                        )
                    }
                }
                delayBefore = chosen.plan.delay
                if let adjusted = chosen.plan.request { request = adjusted }
            }
        }
        // The loop returns on every path of its last attempt.
        fail(RecoveryError(.retriesExhausted))
    }

    /// A handler's decision, or `nil` when the deadline passed before the handler decided.
    ///
    /// On a real clock the handler is raced against the time left (`TimeLimit`): a refresh that
    /// never answers or a captcha nobody solves ends the call at its deadline, while the shared
    /// work goes on for whoever else waits for it. On another clock (a test clock) the handler
    /// runs inline and the deadline is checked once it returns.
    private func recover(
        from failure: FailedAttempt,
        with handler: any RecoverableErrorHandler,
        deadline: Duration
    ) async throws -> RecoveryDecision? {
        guard clock.isReal else { return try await handler.recover(from: failure) }
        let left = deadline - clock.now()
        guard left > .zero else { return nil }
        return try await TimeLimit.run(limit: left, sleep: clock.sleep) {
            try await handler.recover(from: failure)
        }
    }

    /// `request` as `handler` prepared it, or `nil` when the deadline passed first, on a real clock.
    ///
    /// `prepare` runs on every attempt, so it is raced only if it suspends (`TimeLimit`): a hook
    /// that returns without suspending costs one task started on this thread, and one that waits
    /// for a credential store that hangs is left behind at the deadline. With no time left, the
    /// hook is not asked: the attempt could not be sent anyway.
    private nonisolated(nonsending) func prepare(
        _ request: HTTPRequest,
        with handler: any RecoverableErrorHandler,
        deadline: Duration
    ) async throws -> HTTPRequest? {
        let left = deadline - clock.now()
        guard left > .zero else { return nil }
        return try await TimeLimit.run(limit: left, sleep: clock.sleep) {
            var prepared = request
            try await handler.prepare(&prepared)
            return prepared
        }
    }

    /// Tells `handler` that `request` succeeded, leaving it behind if it is still at it when the
    /// deadline passes, on a real clock: the call has its response, and returns it.
    private nonisolated(nonsending) func observeSuccess(
        of request: HTTPRequest,
        with handler: any RecoverableErrorHandler,
        deadline: Duration,
        label: String
    ) async {
        do {
            let observed: Void? = try await TimeLimit.run(limit: deadline - clock.now(), sleep: clock.sleep) {
                await handler.attemptDidSucceed(request)
            }
            guard observed == nil else { return }
            logger.warning(
                "attemptDidSucceed left behind at the deadline",
                metadata: ["endpoint": "\(label)", "handler": "\(handler.name)"]
            )
        } catch {
            // Cancelled while the hook was still at it: the call has its response all the same.
        }
    }

    /// The caller's API error for a failed call, counted, logged and recorded on the span.
    @usableFromInline
    func failure<Response, Code>(
        of endpoint: Endpoint<Response, Code>,
        cause: any Error,
        history: [AttemptRecord],
        label: String,
        fileID: String,
        line: Int,
        span: (any Span)?
    ) -> LayerError<Code> {
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
        span?.recordError(error)
        span?.attributes["rebound.chain"] = chain
        logger.warning(
            "request failed",
            metadata: [
                "endpoint": "\(label)", "chain": "\(chain)", "attempts": "\(history.count)",
            ]
        )
        return error
    }

    @usableFromInline
    nonisolated(nonsending) static func traced<T: Tracer>(
        by tracer: T,
        _ name: String,
        _ body: (any Span) async -> Void
    ) async {
        await tracer.withSpan(name, ofKind: .client) { span in await body(span) }
    }

    /// One attempt: send, then judge and classify the answer.
    private nonisolated(nonsending) func send(
        _ request: HTTPRequest,
        body: Data?,
        options: TransportOptions,
        decode: (TransportResponse) throws -> Void
    ) async -> Outcome {
        let response: TransportResponse
        do {
            response = try await transport.send(request, body: body, options: options)
        } catch {
            return .failure(error, nil)
        }
        let status = response.status.code
        guard (200..<300).contains(status) else {
            let failure =
                backendErrorParser?.parse(response.head, body: response.body) ?? HTTPError(response: response.head)
            return .failure(failure, response)
        }
        do {
            try decode(response)
            return .success(status: status)
        } catch {
            return .failure(error, response)
        }
    }

    /// Decodes a successful response, with this data manager's observer of partial decoding
    /// installed for resilient endpoints that have none of their own.
    @inlinable
    func decode<Response, Code>(
        _ response: TransportResponse,
        with endpoint: Endpoint<Response, Code>
    ) throws -> Response {
        guard let partialDecodingObserver else { return try endpoint.decode(response) }
        return try ResilientDecoding.$observer.withValue(partialDecodingObserver) { try endpoint.decode(response) }
    }

    /// A handler's own failure, as it appears in the chain.
    private func handlerFailure(_ error: any Error) -> any Error {
        switch error {
        case is any LayeredError: error
        case is CancellationError: RecoveryError(.cancelled, cause: error)
        default: RecoveryError(.handlerFailed, cause: error)
        }
    }

    private func logAttempt(_ call: Call, _ record: AttemptRecord, delay: Duration? = nil) {
        guard logger.logLevel <= .info else { return }
        var metadata: Logger.Metadata = [
            "endpoint": "\(call.label)", "attempt": "\(record.number)", "chain": "\(record.error ?? "")",
        ]
        if let status = record.status { metadata["status"] = "\(status)" }
        if let handler = record.handler { metadata["handler"] = "\(handler)" }
        if let delay {
            let (seconds, attoseconds) = delay.components
            metadata["delay"] = "\(String(format: "%.3f", Double(seconds) + Double(attoseconds) / 1e18)) s"
        }
        logger.info(record.handler == nil ? "attempt failed" : "attempt failed, recovering", metadata: metadata)
    }

    private func attemptEvent(_ record: AttemptRecord) -> SpanEvent {
        var attributes = SpanAttributes()
        attributes["rebound.attempt"] = record.number
        if let status = record.status { attributes["http.response.status_code"] = status }
        if let error = record.error { attributes["rebound.chain"] = error }
        if let handler = record.handler { attributes["rebound.handler"] = handler }
        return SpanEvent(name: "attempt", attributes: attributes)
    }
}
