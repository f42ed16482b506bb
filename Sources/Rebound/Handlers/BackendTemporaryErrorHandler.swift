public import HTTPTypes

/// Retries failures that are likely to pass: 408, 429, 502, 503, 504 and transient network failures.
///
/// The wait before retry *k* (counting from 0) comes from ``Backoff`` (exponential, capped, with
/// jitter), unless the response carries `Retry-After`, which is honoured in both its forms up to
/// ``Configuration/retryAfter``'s maximum. If the server asks for more time than the request has
/// left, the handler fails at once with ``RecoveryErrorCode/retryAfterBeyondDeadline`` instead of
/// sleeping past the deadline.
///
/// Only idempotent requests are retried (GET, HEAD, OPTIONS, PUT, DELETE, TRACE), or any request
/// that carries an `Idempotency-Key`: sending a POST twice might apply it twice.
/// ``Configuration/addsIdempotencyKey`` gives every non-idempotent request a generated key so that
/// it can be retried safely by servers that honour the header.
///
/// A ``RetryBudget`` shared by all requests of the client stops retries when most attempts fail,
/// so that a struggling backend is not buried under retries; a retry it refuses ends the request
/// with ``RecoveryErrorCode/retryBudgetExhausted``. Every successful attempt earns the budget a
/// fraction of a token and every retryable failure costs one; a failure this handler does not
/// retry (a 404, a 401, a captcha) leaves the budget as it is.
///
/// The budget hears every retryable failure through ``attemptDidEndSynchronously(_:context:)``, the last
/// attempt's included, and every success; ``recover(from:)`` charges it (and asks it whether to
/// retry, in one atomic step) when it is asked first. A 429 that an ``AdaptiveRateLimitHandler``
/// earlier in the list recovered from is not charged: the limiter makes the retry wait for a
/// token, which is the answer to throttling, and a storm of 429s must not spend the budget that
/// the service's real failures need. Without a limiter, 429s are retried and charged like the
/// other statuses.
///
/// Randomness is injected (for jitter and keys): with ``SeededRandom`` the schedule is
/// reproducible. The date of an HTTP-date `Retry-After` comes from the pipeline's
/// ``AttemptContext/time``.
public struct BackendTemporaryErrorHandler: RecoverableErrorHandler {
    /// What the handler retries and how long it waits.
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``backoff`` | 0.2 s × 2^k, capped at 10 s, full jitter | see ``Backoff`` |
    /// | ``retryAfter`` | honoured up to 60 s | see ``RetryAfterPolicy`` |
    /// | ``retryableStatuses`` | 408, 429, 502, 503, 504 | the statuses that mean "not now" rather than "no": a request the server timed out waiting for (RFC 9110 lets the client repeat it), rate limiting, and a gateway or server that is overloaded or restarting |
    /// | ``retryableNetworkFailures`` | timeout, connectTimeout, stalled, cannotConnect, connectionReset, incompleteResponse | failures of the path, not of the request; a TLS failure, a bad URL or a response over the size limit would fail again |
    /// | ``addsIdempotencyKey`` | off | the header only helps servers that implement it |
    ///
    /// Beside the libraries people compare it with: Alamofire's `RetryPolicy` retries 408, 500,
    /// 502, 503 and 504; Polly's HTTP resilience pipeline (Microsoft.Extensions.Http.Resilience)
    /// 408, 429 and every 5xx; the AWS SDKs throttling errors (429 and the services' throttling
    /// codes) and 500, 502, 503 and 504. 500 stays out here: it says the server failed on this
    /// request, most often a defect that fails the same way again, so retrying it multiplies the
    /// load and delays the error a person should see; add it for a backend known to answer 500
    /// to transient trouble.
    public struct Configuration: Sendable, Hashable {
        public var backoff: Backoff
        public var retryAfter: RetryAfterPolicy
        public var retryableStatuses: Set<Int>
        public var retryableNetworkFailures: Set<NetworkErrorCode>
        public var addsIdempotencyKey: Bool

        public init(
            backoff: Backoff = Backoff(),
            retryAfter: RetryAfterPolicy = RetryAfterPolicy(),
            retryableStatuses: Set<Int> = [408, 429, 502, 503, 504],
            retryableNetworkFailures: Set<NetworkErrorCode> = [
                .timeout, .connectTimeout, .stalled, .cannotConnect, .connectionReset, .incompleteResponse,
            ],
            addsIdempotencyKey: Bool = false
        ) {
            self.backoff = backoff
            self.retryAfter = retryAfter
            self.retryableStatuses = retryableStatuses
            self.retryableNetworkFailures = retryableNetworkFailures
            self.addsIdempotencyKey = addsIdempotencyKey
        }

        /// The defaults of the table above.
        public static let `default` = Configuration()

        /// Retries nothing. With nothing counted as transient, no failure is charged to the retry
        /// budget either (successes still refill it): a budget shared with another handler hears
        /// nothing of this one's failures.
        public static let disabled = Configuration(retryableStatuses: [], retryableNetworkFailures: [])

        /// For background work: ``Backoff/background`` waits, `Retry-After` honoured up to 10
        /// minutes, and idempotency keys on requests that are not idempotent (a background queue
        /// retries uploads, which servers that honour the key then apply once).
        public static let background = Configuration(
            backoff: .background, retryAfter: RetryAfterPolicy(maximum: .seconds(600)), addsIdempotencyKey: true)
    }

    /// The methods that may be sent twice with the effect of once (RFC 9110, section 9.2.2).
    public static let idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .put, .delete, .trace]

    /// The header that makes a non-idempotent request safe to retry.
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    public let name = "BackendTemporaryErrorHandler"
    public let configuration: Configuration
    /// The budget shared by every request this handler serves.
    public let budget: RetryBudget
    private let random: Locked<any RandomNumberGenerator & Sendable>
    /// The attempts whose failure ``recover(from:)`` charged to the budget, until their outcome
    /// comes: each attempt ends in one outcome, so the set holds only attempts being decided.
    private let charged = Locked<Set<AttemptID>>([])

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - configuration: What to retry and how long to wait.
    ///   - budget: The retry budget; give every handler of one client the same one.
    ///   - random: The source of jitter and idempotency keys; seed it to reproduce a schedule.
    public init(
        configuration: Configuration = Configuration(),
        budget: RetryBudget = RetryBudget(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.budget = budget
        self.random = Locked(random)
    }

    /// `prepare` only adds idempotency keys; the outcome feeds the budget. Neither suspends.
    public var hooks: HandlerHooks {
        configuration.addsIdempotencyKey
            ? [.prepareSynchronously, .attemptDidEndSynchronously] : .attemptDidEndSynchronously
    }

    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        // An answer no retry fixes (a 404, a 401, a captcha) is neither a success nor a retryable
        // failure: the budget is not told, or such answers would earn retries for other requests
        // and break the bound `RetryBudget` promises against a backend that is down.
        guard isRetryable(failure) else { return .cannotHandle }
        let allowed = budget.recordFailure()
        charged.withLock { _ = $0.insert(failure.context.id) }
        guard allowed else {
            throw RecoveryError(
                .retryBudgetExhausted,
                cause: failure.error,
                reason: "Too many recent attempts failed; the client's retry budget is spent."
            )
        }
        if let header = failure.response?.head.headerFields[.retryAfter],
            let requested = RetryAfter.parse(header, now: failure.context.time.date())
        {
            switch configuration.retryAfter.wait(requested: requested, timeLeft: failure.timeLeft) {
            case .wait(let delay):
                return .retry(after: delay)
            case .exceedsDeadline(let requested, let timeLeft):
                throw RecoveryError(
                    .retryAfterBeyondDeadline,
                    cause: failure.error,
                    reason: "The server asked to wait \(requested), but only \(timeLeft) is left before the deadline."
                )
            }
        }
        let retry = failure.recoveries(by: name)
        let previous = retry > 0 ? failure.delayBefore : nil
        let delay = random.withLock { random in
            configuration.backoff.delay(forRetry: retry, previous: previous, using: &random)
        }
        return .retry(after: delay)
    }

    /// Adds an idempotency key to a request whose method is not idempotent and that has none,
    /// when ``Configuration/addsIdempotencyKey`` is on.
    public func prepareSynchronously(
        _ request: inout HTTPRequest, context: AttemptContext
    ) -> SynchronousPreparation {
        guard configuration.addsIdempotencyKey, !Self.idempotentMethods.contains(request.method),
            request.headerFields[Self.idempotencyKey] == nil
        else { return .done }
        request.headerFields[Self.idempotencyKey] = random.withLock { random in Self.uuid(using: &random) }
        return .done
    }

    /// Refills the budget after a success, and charges it for a retryable failure that
    /// ``recover(from:)`` did not see (the last attempt's, or one another handler recovered from).
    public func attemptDidEndSynchronously(_ outcome: AttemptOutcome, context: AttemptContext) {
        switch outcome {
        case .succeeded:
            budget.recordSuccess()
        case .failed(let failure, let record):
            let wasCharged = charged.withLock { $0.remove(context.id) != nil }
            // A throttle the rate limiter recovered from waits for a token instead of a retry.
            guard record.handler != AdaptiveRateLimitHandler.handlerName else { return }
            if !wasCharged, isRetryable(failure) { budget.recordFailure() }
        case .cancelled, .refused, .abandoned:
            break
        }
    }

    /// Whether the failure is transient and its request may be sent again.
    private func isRetryable(_ failure: FailedAttempt) -> Bool {
        isTransient(failure) && Self.mayRetry(failure.request)
    }

    /// Whether the failure is one that waiting may cure.
    func isTransient(_ failure: FailedAttempt) -> Bool {
        // A captcha sent with 429 is not rate limiting that waiting cures: it is the captcha
        // handler's, wherever it stands in the chain.
        if failure.error.chainContains(BackendErrorCode.captchaRequired) { return false }
        if let status = failure.status {
            return configuration.retryableStatuses.contains(status.code)
        }
        guard let network = failure.error.firstError(in: NetworkErrorCode.self) else { return false }
        return configuration.retryableNetworkFailures.contains(network.code)
    }

    /// Whether sending `request` again is safe: its method is idempotent or it carries a key.
    static func mayRetry(_ request: HTTPRequest) -> Bool {
        idempotentMethods.contains(request.method) || request.headerFields[idempotencyKey] != nil
    }

    /// A version-4 UUID from `random`, so that a seeded generator gives reproducible keys.
    private static func uuid(using random: inout any RandomNumberGenerator & Sendable) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(
            separator: "-")
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
