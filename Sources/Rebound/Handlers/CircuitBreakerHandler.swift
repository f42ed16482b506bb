public import CoreMetrics
public import HTTPTypes
public import Logging
import Metrics

/// Stops sending to a service that keeps failing, so that it can recover, and fails fast
/// meanwhile: a circuit breaker per service.
///
/// Each service (a key: the request's host and port by default, or what the endpoint's
/// ``EndpointOptions/circuitBreakerKey`` says) has a circuit:
///
/// ```
///            failure ratio ≥ 50 % of the last 20 attempts (at least 10 made)
///   ┌────────┐ ─────────────────────────────────────────► ┌──────┐
///   │ closed │                                            │ open │ attempts refused in prepare:
///   └────────┘ ◄───────┐                         ┌──────► └──────┘ RecoveryError.circuitOpen
///        ▲             │ the probe fails:        │            │ the break is over (5 s ± 20 %,
///        │             │ open again, the break   │            │ doubled after each failed probe,
///        │             │ doubled                 │            ▼ up to 60 s)
///        │             └──────────────── ┌───────────┐
///        └────── the probe succeeds ──── │ half-open │ one probe goes through; others are refused
///                                        └───────────┘
/// ```
///
/// An open circuit refuses attempts in ``prepareSynchronously(_:context:)``, before they are
/// sent: the transport is never asked, and the call ends with ``RecoveryErrorCode/circuitOpen``,
/// whose context's `retryAfterSeconds` (and attachment ``CircuitOpen``) says when the next probe
/// may go. ``ErrorPresenter`` shows "The service is unavailable. Please try again in N s."
///
/// Failures are the answers and network failures of ``Configuration/failureStatuses`` and
/// ``Configuration/failureNetworkFailures`` (500–504, timeouts, refused and reset connections).
/// Every other answer counts as a success, since the service answered, except 429, which says
/// nothing about its health and belongs to a rate limiter; attempts that were refused,
/// cancelled or abandoned count as nothing. A probe's slot taken in `prepare` is given back in
/// ``attemptDidEndSynchronously(_:context:)`` whichever way the attempt ends.
///
/// Put it first in the handler list, so that a refused attempt costs nothing else:
///
/// ```swift
/// let breaker = CircuitBreakerHandler()
/// let handlers: [any RecoverableErrorHandler] = [breaker, BackendTemporaryErrorHandler()]
/// ```
///
/// Each attempt is counted, retries included: a call that retries three 503s adds three failures.
/// An endpoint that must never be refused (a token refresh the breaker would otherwise block
/// behind its own service's outage) skips it with `.skipping(.type(CircuitBreakerHandler.self))`.
///
/// Every change of state is logged (`notice` when a circuit opens or is isolated, `info`
/// otherwise), counted in `rebound_circuit_transitions_total` (dimensions `key`, `from`, `to`),
/// and passed to the `onTransition` closure; refused attempts are counted in
/// `rebound_circuit_refusals_total` (dimension `key`), and each remembered circuit's state is the
/// gauge `rebound_circuit_state` (dimension `key`; ``State/gaugeValue``: 0 closed, 1 half-open,
/// 2 open, 3 isolated). ``status(of:)`` reads a circuit; ``isolate(_:)`` and ``reset(_:)`` open
/// and close one by hand. At most ``Configuration/maximumKeys`` circuits are kept: a new key then
/// replaces the least recently used closed circuit (or, when none is closed, the least recently
/// used that is not isolated), and the forgotten circuit's series (its gauge and counters) are
/// destroyed with it.
///
/// Share one breaker between the data managers that talk to the same services, so that they
/// see the same circuits.
public final class CircuitBreakerHandler: RecoverableErrorHandler, Sendable {
    /// The state of one circuit.
    public enum State: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Attempts go through and are counted.
        case closed
        /// Attempts are refused until the break is over.
        case open
        /// Probes go through; their outcome closes or opens the circuit.
        case halfOpen
        /// Opened by hand (``CircuitBreakerHandler/isolate(_:)``): attempts are refused until
        /// ``CircuitBreakerHandler/reset(_:)``.
        case isolated

        public var description: String { rawValue }

        /// The state's value in the gauge `rebound_circuit_state`: 0 closed, 1 half-open, 2 open,
        /// 3 isolated, so that 2 or more means that attempts are refused.
        public var gaugeValue: Double {
            switch self {
            case .closed: 0
            case .halfOpen: 1
            case .open: 2
            case .isolated: 3
            }
        }
    }

    /// A change of a circuit's state.
    public struct Transition: Sendable, Hashable {
        /// The circuit's key.
        public let key: String
        public let from: State
        public let to: State
        /// When, on the pipeline's monotonic clock (``TimeSource/now``); `nil` for a change made by
        /// hand.
        public let at: Duration?
        /// For a circuit that opened, how long it stays open.
        public let breakDuration: Duration?
        /// Failed probes in a row since the circuit last closed.
        public let failedProbes: Int
    }

    /// What ``status(of:)`` reads of one circuit.
    public struct Status: Sendable, Hashable {
        public let state: State
        /// The attempts counted in the window (while closed).
        public let attempts: Int
        /// The failures among them.
        public let failures: Int
        /// Failed probes in a row since the circuit last closed.
        public let failedProbes: Int
        /// When an open circuit lets its next probe through, on the pipeline's monotonic clock.
        public let opensForProbeAt: Duration?
    }

    public let name = "CircuitBreakerHandler"
    public let configuration: Configuration
    private let registry: Locked<CircuitBreakerRegistry>
    private let logger: Logger
    private let metrics: (any MetricsFactory)?
    private let onTransition: (@Sendable (Transition) -> Void)?

    /// Creates a breaker.
    ///
    /// - Parameters:
    ///   - configuration: When circuits open and for how long.
    ///   - random: The source of the breaks' jitter; seed it to reproduce them.
    ///   - logger: Where changes of state are logged.
    ///   - metricsFactory: Where they are counted; `nil` uses the process's `MetricsSystem`.
    ///   - onTransition: Called with every change of state, after it happened (outside any lock).
    public init(
        configuration: Configuration = .default,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        logger: Logger = Logger(label: "rebound.circuit-breaker", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsFactory: (any MetricsFactory)? = nil,
        onTransition: (@Sendable (Transition) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        let factory = metricsFactory ?? MetricsSystem.factory
        metrics = factory is NOOPMetricsHandler ? nil : factory
        registry = Locked(
            CircuitBreakerRegistry(
                configuration: configuration, random: random,
                series: metrics.map { KeyedSeries(gaugeLabel: "rebound_circuit_state", factory: $0) }))
        self.onTransition = onTransition
    }

    /// Both hooks are a few lines under a lock: they never suspend.
    public var hooks: HandlerHooks { [.prepareSynchronously, .attemptDidEndSynchronously] }

    /// A breaker recovers from nothing: it only refuses.
    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    /// Lets the attempt through, or refuses it when its circuit is open or isolated.
    ///
    /// - Returns: ``SynchronousPreparation/done``: a breaker never waits.
    /// - Throws: ``RecoveryErrorCode/circuitOpen`` (with the time until the next probe) or
    ///   ``RecoveryErrorCode/circuitIsolated``.
    public func prepareSynchronously(
        _ request: inout HTTPRequest, context: AttemptContext
    ) throws -> SynchronousPreparation {
        let key = context.options.circuitBreakerKey ?? request.authority ?? ""
        let time = context.time
        let (admission, transition) = registry.withLock { $0.admit(context.id, key: key, now: time.now()) }
        if let transition { publish(transition) }
        switch admission {
        case .allowed:
            return .done
        case .open(let retryAfter):
            countRefusal(key)
            let seconds = Self.wholeSecondsRoundedUp(retryAfter)
            var error = RecoveryError(
                .circuitOpen,
                reason:
                    "The circuit for \(key) is open: too many recent attempts failed; the next probe may go in \(seconds) s.",
                context: ["key": "\(key)", "retryAfterSeconds": "\(seconds)"]
            )
            error.attachments.append(CircuitOpen(key: key, retryAfter: retryAfter))
            throw error
        case .isolated:
            countRefusal(key)
            throw RecoveryError(
                .circuitIsolated, reason: "The circuit for \(key) was isolated by hand.", context: ["key": "\(key)"])
        }
    }

    /// Counts the attempt's result in its circuit and gives back a probe's slot.
    public func attemptDidEndSynchronously(_ outcome: AttemptOutcome, context: AttemptContext) {
        let result = classify(outcome)
        let time = context.time
        if let transition = registry.withLock({ $0.end(context.id, result, now: time.now()) }) { publish(transition) }
    }

    /// The state of `key`'s circuit; a key never seen (or forgotten) is closed and empty.
    public func status(of key: String) -> Status {
        registry.withLock { registry in
            guard let circuit = registry.circuits[key] else {
                return Status(state: .closed, attempts: 0, failures: 0, failedProbes: 0, opensForProbeAt: nil)
            }
            var opensAt: Duration?
            if case .open(let until) = circuit.phase { opensAt = until }
            return Status(
                state: circuit.state, attempts: circuit.window.count, failures: circuit.failures,
                failedProbes: circuit.failedProbes, opensForProbeAt: opensAt)
        }
    }

    /// The keys of the circuits the breaker remembers.
    public var keys: [String] { registry.withLock { Array($0.circuits.keys) } }

    /// Opens `key`'s circuit until ``reset(_:)``: for a service known to be down, or to take one
    /// out of use.
    public func isolate(_ key: String) {
        if let transition = registry.withLock({ $0.isolate(key) }) { publish(transition) }
    }

    /// Closes `key`'s circuit and forgets its failures.
    public func reset(_ key: String) {
        if let transition = registry.withLock({ $0.reset(key) }) { publish(transition) }
    }

    private func classify(_ outcome: AttemptOutcome) -> CircuitBreakerRegistry.Result {
        switch outcome {
        case .succeeded:
            return .success
        case .failed(let failure, _):
            if let status = failure.status?.code {
                if configuration.failureStatuses.contains(status) { return .failure }
                return status == 429 ? .ignored : .success
            }
            guard let network = failure.error.firstError(in: NetworkErrorCode.self) else { return .ignored }
            return configuration.failureNetworkFailures.contains(network.code) ? .failure : .ignored
        case .refused, .cancelled, .abandoned:
            return .ignored
        }
    }

    private func publish(_ transition: Transition) {
        var metadata: Logger.Metadata = [
            "key": "\(transition.key)", "from": "\(transition.from)", "to": "\(transition.to)",
        ]
        if let duration = transition.breakDuration { metadata["break"] = "\(duration)" }
        if transition.failedProbes > 0 { metadata["failedProbes"] = "\(transition.failedProbes)" }
        let level: Logger.Level = transition.to == .open || transition.to == .isolated ? .notice : .info
        logger.log(level: level, "circuit \(transition.to)", metadata: metadata)
        if metrics != nil {
            registry.withLock {
                $0.counter(
                    "rebound_circuit_transitions_total", for: transition.key,
                    [("from", "\(transition.from)"), ("to", "\(transition.to)")])
            }?.increment()
        }
        onTransition?(transition)
    }

    private func countRefusal(_ key: String) {
        guard metrics != nil else { return }
        registry.withLock { $0.counter("rebound_circuit_refusals_total", for: key) }?.increment()
    }

    private static func wholeSecondsRoundedUp(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, attoseconds > 0 ? seconds + 1 : seconds)
    }
}

/// Attached to a ``RecoveryErrorCode/circuitOpen`` error: which circuit refused the attempt and
/// when its next probe may go.
public struct CircuitOpen: ErrorAttachment, Hashable {
    /// The circuit's key.
    public let key: String
    /// The time until the next probe may go.
    public let retryAfter: Duration

    init(key: String, retryAfter: Duration) {
        self.key = key
        self.retryAfter = retryAfter
    }
}

extension EndpointOptions {
    /// The circuit of ``CircuitBreakerHandler`` that this endpoint's attempts count in; `nil` (the
    /// default) means the request's host and port. Endpoints of one host served by different
    /// backends may each have their own.
    public var circuitBreakerKey: String? {
        get { self[CircuitBreakerKeyOption.self] }
        set { self[CircuitBreakerKeyOption.self] = newValue }
    }
}

private enum CircuitBreakerKeyOption: EndpointOptionKey {
    static let defaultValue: String? = nil
}
