import HTTPTypes

/// Observes every call and attempt of an ``APIDataManager`` as it happens.
///
/// The pipeline calls ``receive(_:)`` inline, on the call's own task, for each ``APIEvent``: keep
/// it short and non-blocking (count, log, hand the event to a queue). A data manager without a
/// monitor pays one check of an optional per event.
///
/// ```swift
/// struct AttemptLog: APIEventMonitor {
///     func receive(_ event: APIEvent) {
///         guard event.kind == .attemptFailed || event.kind == .attemptSucceeded else { return }
///         print(event.endpoint, event.attempt ?? 0, event.status ?? 0, event.transfer?.timings?.total ?? .zero)
///     }
/// }
/// ```
///
/// Events carry no header field, query or body: only the endpoint's template, statuses, chains,
/// handler names, durations and transfer facts.
public protocol APIEventMonitor: Sendable {
    /// Hears one event.
    ///
    /// - Parameter event: What happened.
    func receive(_ event: APIEvent)
}

/// One thing that happened to a call or one of its attempts, as an ``APIEventMonitor`` hears it.
///
/// For one call, in order:
///
/// ```text
/// callStarted
///   attemptStarted ─► attemptRefused                       (a handler's prepare, or the deadline)
///   attemptStarted ─► attemptSent ─► attemptSucceeded
///   attemptStarted ─► attemptSent ─► attemptFailed ─► handlerDecided ─► waiting ─► attemptStarted …
/// callSucceeded | callFailed
/// ```
///
/// A hedged call (``HedgingPolicy``) interleaves its attempts: `hedging` comes before the
/// `attemptStarted` of each hedge, and when one attempt succeeds the others end in
/// `attemptAbandoned`.
public struct APIEvent: Sendable {
    /// What kind of event it is; new kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ name: String) { description = name }

        /// The call begins.
        public static let callStarted = Kind("callStarted")
        /// An attempt begins: the handlers prepare it.
        public static let attemptStarted = Kind("attemptStarted")
        /// The attempt was never sent: a handler's `prepare` refused it (``APIEvent/handler``), or
        /// the deadline passed; ``APIEvent/chain`` says why.
        public static let attemptRefused = Kind("attemptRefused")
        /// The attempt goes to the transport.
        public static let attemptSent = Kind("attemptSent")
        /// The attempt's answer was a success, and decoded: ``APIEvent/status``,
        /// ``APIEvent/duration``, ``APIEvent/transfer``.
        public static let attemptSucceeded = Kind("attemptSucceeded")
        /// The attempt failed: ``APIEvent/chain``, and ``APIEvent/status`` and
        /// ``APIEvent/transfer`` when a response came.
        public static let attemptFailed = Kind("attemptFailed")
        /// A handler decided to retry: ``APIEvent/handler``, ``APIEvent/delay``.
        public static let handlerDecided = Kind("handlerDecided")
        /// The pipeline waits ``APIEvent/delay`` before the next attempt.
        public static let waiting = Kind("waiting")
        /// No attempt of a hedged call answered within ``APIEvent/delay``: attempt
        /// ``APIEvent/attempt`` goes out beside them.
        public static let hedging = Kind("hedging")
        /// Another attempt of the call succeeded first: this one was cancelled, its transfer removed.
        public static let attemptAbandoned = Kind("attemptAbandoned")
        /// The call returns its value: ``APIEvent/status``, ``APIEvent/duration``.
        public static let callSucceeded = Kind("callSucceeded")
        /// The call fails: ``APIEvent/chain`` is its cause's chain (the thrown error's, without
        /// the endpoint's own link), ``APIEvent/duration``.
        public static let callFailed = Kind("callFailed")
    }

    /// What happened.
    public var kind: Kind
    /// The call's number, unique in the process (``AttemptID/call``).
    public var call: UInt64
    /// The attempt's number from 1, for attempt events; `nil` for call events and ``Kind/waiting``.
    public var attempt: Int?
    /// The endpoint, `{method} {url.template}`: `GET /v1/tasks/{}`.
    public var endpoint: String
    /// The response's status.
    public var status: Int?
    /// The failure's chain.
    public var chain: ErrorChain?
    /// The handler that refused or decided.
    public var handler: String?
    /// The wait a handler asked for, or the pipeline waits.
    public var delay: Duration?
    /// How long the attempt (from sending to the judged answer) or the call took.
    public var duration: Duration?
    /// The transfer's facts, libcurl's timings among them (``TransferInfo/timings``).
    public var transfer: TransferInfo?

    init(
        kind: Kind, call: UInt64, attempt: Int? = nil, endpoint: String, status: Int? = nil,
        chain: ErrorChain? = nil, handler: String? = nil, delay: Duration? = nil, duration: Duration? = nil,
        transfer: TransferInfo? = nil
    ) {
        self.kind = kind
        self.call = call
        self.attempt = attempt
        self.endpoint = endpoint
        self.status = status
        self.chain = chain
        self.handler = handler
        self.delay = delay
        self.duration = duration
        self.transfer = transfer
    }
}

/// A call's monitor with what every event of the call repeats: made once per call, only when
/// the data manager has a monitor. An object, so that checking the call's optional one is a
/// pointer comparison.
final class CallMonitor: Sendable {
    let monitor: any APIEventMonitor
    let call: UInt64
    let endpoint: String

    /// The monitor of `manager`'s call `call`, numbered `number`; `nil` without a monitor.
    init?(_ manager: APIDataManager, call: APIDataManager.CallRequest, number: UInt64) {
        guard let monitor = manager.monitor else { return nil }
        self.monitor = monitor
        self.call = number
        endpoint = HTTPClientConventions.spanName(
            method: call.method,
            template: HTTPClientConventions.pathTemplate(basePath: manager.basePath, template: call.template))
    }

    func emit(
        _ kind: APIEvent.Kind, attempt: Int? = nil, status: Int? = nil, error: (any Error)? = nil,
        handler: String? = nil, delay: Duration? = nil, duration: Duration? = nil, transfer: TransferInfo? = nil
    ) {
        monitor.receive(
            APIEvent(
                kind: kind, call: call, attempt: attempt, endpoint: endpoint, status: status,
                chain: error.map(ErrorChain.init), handler: handler, delay: delay, duration: duration,
                transfer: transfer))
    }
}

extension CallMonitor {
    /// Tells the monitor how a sent attempt came out.
    func attemptEnded(_ outcome: APIDataManager.AttemptResult, attempt: Int, duration: Duration) {
        switch outcome {
        case .success(let response):
            emit(
                .attemptSucceeded, attempt: attempt, status: response.status.code, duration: duration,
                transfer: response.info)
        case .failure(let error, let response):
            emit(
                .attemptFailed, attempt: attempt, status: response?.status.code, error: error, duration: duration,
                transfer: response?.info)
        }
    }
}
