public import Foundation
public import HTTPTypes

/// Retries failures that are likely to pass: 502, 503, 504, 429 and transient network failures.
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
/// Time and randomness are injected: the current date (for HTTP-date `Retry-After`) and the
/// random generator (for jitter and keys). With ``SeededRandom`` the schedule is
/// reproducible.
public struct BackendTemporaryErrorHandler: RecoverableErrorHandler {
    /// What the handler retries and how long it waits.
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``backoff`` | 0.2 s × 2^k, capped at 10 s, full jitter | see ``Backoff`` |
    /// | ``retryAfter`` | honoured up to 60 s | see ``RetryAfterPolicy`` |
    /// | ``retryableStatuses`` | 429, 502, 503, 504 | the statuses that mean "not now" rather than "no": rate limiting, and a gateway or server that is overloaded or restarting |
    /// | ``retryableNetworkFailures`` | timeout, connectTimeout, stalled, cannotConnect, connectionReset, incompleteResponse | failures of the path, not of the request; a TLS failure, a bad URL or a response over the size limit would fail again |
    /// | ``addsIdempotencyKey`` | off | the header only helps servers that implement it |
    public struct Configuration: Sendable, Hashable {
        public var backoff: Backoff
        public var retryAfter: RetryAfterPolicy
        public var retryableStatuses: Set<Int>
        public var retryableNetworkFailures: Set<NetworkErrorCode>
        public var addsIdempotencyKey: Bool

        public init(
            backoff: Backoff = Backoff(),
            retryAfter: RetryAfterPolicy = RetryAfterPolicy(),
            retryableStatuses: Set<Int> = [429, 502, 503, 504],
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
    private let now: @Sendable () -> Date

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - configuration: What to retry and how long to wait.
    ///   - budget: The retry budget; give every handler of one client the same one.
    ///   - random: The source of jitter and idempotency keys; seed it to reproduce a schedule.
    ///   - now: The current date, for `Retry-After` given as an HTTP date.
    public init(
        configuration: Configuration = Configuration(),
        budget: RetryBudget = RetryBudget(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.budget = budget
        self.random = Locked(random)
        self.now = now
    }

    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        // An answer no retry fixes (a 404, a 401, a captcha) is neither a success nor a retryable
        // failure: the budget is not told, or such answers would earn retries for other requests
        // and break the bound `RetryBudget` promises against a backend that is down.
        guard isTransient(failure) else { return .cannotHandle }
        guard Self.mayRetry(failure.request) else { return .cannotHandle }
        guard budget.recordFailure() else {
            throw RecoveryError(
                .retryBudgetExhausted,
                cause: failure.error,
                reason: "Too many recent attempts failed; the client's retry budget is spent."
            )
        }
        if let header = failure.response?.head.headerFields[.retryAfter],
            let requested = RetryAfter.parse(header, now: now())
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

    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws {
        prepareSynchronously(&request)
    }

    public nonisolated(nonsending) func attemptDidSucceed(_ request: HTTPRequest) async {
        attemptDidSucceedSynchronously(request)
    }

    /// Whether the failure is one that waiting may cure.
    public func isTransient(_ failure: FailedAttempt) -> Bool {
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
    public static func mayRetry(_ request: HTTPRequest) -> Bool {
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

extension BackendTemporaryErrorHandler: HandlerHookUsage {
    /// `prepare` only adds idempotency keys, and the configuration cannot change.
    var usesPrepare: Bool { configuration.addsIdempotencyKey }
    var usesAttemptDidSucceed: Bool { true }
    var preparesSynchronously: Bool { true }

    /// Adds an idempotency key to a request whose method is not idempotent and that has none.
    func prepareSynchronously(_ request: inout HTTPRequest) {
        guard configuration.addsIdempotencyKey, !Self.idempotentMethods.contains(request.method),
            request.headerFields[Self.idempotencyKey] == nil
        else { return }
        request.headerFields[Self.idempotencyKey] = random.withLock { random in Self.uuid(using: &random) }
    }

    /// Refills the retry budget.
    func attemptDidSucceedSynchronously(_ request: HTTPRequest) {
        budget.recordSuccess()
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
