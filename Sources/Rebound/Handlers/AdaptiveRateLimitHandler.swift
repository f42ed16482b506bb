public import CoreMetrics
public import HTTPTypes
import Metrics

/// Sends no faster than a service accepts: a token bucket per service whose rate adapts to the
/// service's throttling, as the AWS SDKs' adaptive retry mode does.
///
/// Each service (a key: the request's host and port by default, or what the endpoint's
/// ``EndpointOptions/rateLimitKey`` says) has a bucket. It limits nothing until the service
/// first throttles; from then on every attempt takes a token before it is sent:
///
/// ```
///  prepare ──► the bucket does not limit yet, or a token is there ─────────► take it, send
///     │──► no token yet, and it comes before the deadline ──► wait, ask again (in order of arrival)
///     └──► the token comes after the deadline ──► refused at once: RecoveryError.rateLimited
///
///  every answer ──► measured rate (responses per second, smoothed)
///     │──► 429 that says when to come back (Retry-After, or RateLimit with r=0 and t): the
///     │         bucket pauses until then, its rate uncut
///     │──► other 429: rate = 0.7 × measured (CUBIC's cut, once for the attempts sent before it)
///     │         either way the limiter recovers it: the retry waits for a token
///     └──► other: rate grows back on CUBIC's curve, 0.4 × (t − K)³ + W_max, at most twice the
///               measured rate; RateLimit-Policy's quota caps it, r=0 pauses it, r caps its tokens
/// ```
///
/// A 429 that the limiter recovers from (a request that may be sent again: idempotent, or with an
/// idempotency key) is retried without a backoff: the retry waits in `prepare` for a token, and
/// ``BackendTemporaryErrorHandler`` does not charge it to its ``RetryBudget``, since the wait, not
/// a retry, is what answers it. Put the limiter before that handler, or the latter answers the 429
/// first with its own backoff and charge; without a limiter, 429s are retried and charged as
/// before. The call's last attempt is not recovered by anyone, and its 429 is charged as usual.
///
/// The waits are bounded by the call's deadline: an attempt whose token would come after it is
/// refused at once with ``RecoveryErrorCode/rateLimited``, whose context's `retryAfterSeconds` (and
/// attachment ``RateLimitWait``) says how long it would have waited. ``ErrorPresenter`` shows
/// "Too many requests. Please try again in N s."
///
/// ```swift
/// let handlers: [any RecoverableErrorHandler] = [
///     CircuitBreakerHandler(), AdaptiveRateLimitHandler(), ConcurrencyLimitHandler(),
///     BackendTemporaryErrorHandler(),
/// ]
/// ```
///
/// Which fields it reads, and how, is ``RateLimitFields``'s table: `Retry-After`, the IETF draft's
/// `RateLimit` and `RateLimit-Policy`, and `X-RateLimit-Remaining` and `X-RateLimit-Reset`.
/// Malformed values are left out. Refused attempts are counted in `rebound_rate_limit_refusals_total`
/// (dimension `key`), and each limiting bucket's rate is the gauge
/// `rebound_rate_limit_tokens_per_second` (dimension `key`; a bucket that never limited has no
/// series). ``status(of:)`` reads a bucket. At most ``Configuration/maximumKeys`` buckets are
/// kept, the least recently used idle one making room for a new key; the forgotten bucket's
/// series (its gauge and refusal counter) are destroyed with it. An endpoint that must never wait
/// (a token refresh) skips it with `.skipping(.type(AdaptiveRateLimitHandler.self))`.
/// Share one limiter between the data managers that talk to the same services.
public final class AdaptiveRateLimitHandler: RecoverableErrorHandler, Sendable {
    /// What ``status(of:)`` reads of one bucket.
    public struct Status: Sendable, Hashable {
        /// Whether the bucket limits attempts (its service throttled at least once).
        public let isLimiting: Bool
        /// The rate tokens accrue at, per second.
        public let rate: Double
        /// The most tokens the bucket holds.
        public let capacity: Double
        /// The tokens it holds now.
        public let tokens: Double
        /// The responses per second measured, smoothed.
        public let measuredRate: Double
        /// When the last pause the server asked for ends (or ended), on the pipeline's monotonic
        /// clock; `nil` when it never asked for one.
        public let pausedUntil: Duration?
        /// The attempts waiting for a token.
        public let waiting: Int
    }

    /// The handler's name, which the attempt history records when it recovers a 429.
    package static let handlerName = "AdaptiveRateLimitHandler"

    public let name = AdaptiveRateLimitHandler.handlerName
    public let configuration: Configuration
    private let registry: Locked<RateLimitRegistry>
    private let metrics: (any MetricsFactory)?

    /// Creates a limiter.
    ///
    /// - Parameters:
    ///   - configuration: How the rate is cut and grown back.
    ///   - metricsFactory: Where refusals are counted and rates recorded; `nil` uses the process's
    ///     `MetricsSystem`.
    public init(configuration: Configuration = .default, metricsFactory: (any MetricsFactory)? = nil) {
        self.configuration = configuration
        let factory = metricsFactory ?? MetricsSystem.factory
        metrics = factory is NOOPMetricsHandler ? nil : factory
        registry = Locked(
            RateLimitRegistry(
                configuration: configuration,
                series: metrics.map { KeyedSeries(gaugeLabel: "rebound_rate_limit_tokens_per_second", factory: $0) }))
    }

    /// A token at hand is taken inline; only a wait for one needs the asynchronous `prepare`. The
    /// outcome is a few lines under a lock.
    public var hooks: HandlerHooks { [.prepareSynchronously, .attemptDidEndSynchronously] }

    /// Retries a throttled request that may be sent again, at once: its `prepare` waits for a token.
    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        guard let status = failure.status?.code, configuration.throttlingStatuses.contains(status),
            !failure.error.chainContains(BackendErrorCode.captchaRequired),
            BackendTemporaryErrorHandler.mayRetry(failure.request)
        else { return .cannotHandle }
        return .retryNow
    }

    /// Takes a token for the attempt when its bucket does not limit or has one; hands the attempt
    /// over to ``prepare(_:context:)`` when it must wait for one (it keeps its place in the queue).
    ///
    /// - Throws: ``RecoveryErrorCode/rateLimited`` when the token would come after the call's
    ///   deadline.
    public func prepareSynchronously(
        _ request: inout HTTPRequest, context: AttemptContext
    ) throws -> SynchronousPreparation {
        switch admit(request, context) {
        case .go:
            return .done
        case .wait:
            return .continueAsynchronously
        case .refuse(let wait):
            throw refusal(of: request, context, wait: wait)
        }
    }

    /// Takes a token for the attempt, waiting for one when its bucket limits and has none.
    ///
    /// - Throws: ``RecoveryErrorCode/rateLimited`` when the token would come after the call's
    ///   deadline; `CancellationError` when the task is cancelled while waiting.
    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
        while true {
            switch admit(request, context) {
            case .go:
                return
            case .wait(let wait):
                do {
                    try await context.time.sleep(for: wait)
                } catch {
                    registry.withLock { $0.leave(context.id) }
                    throw error
                }
            case .refuse(let wait):
                throw refusal(of: request, context, wait: wait)
            }
        }
    }

    /// Asks the attempt's bucket for a token now.
    private func admit(_ request: HTTPRequest, _ context: AttemptContext) -> RateLimitRegistry.Admission {
        let key = Self.key(of: request, context)
        let time = context.time
        return registry.withLock { $0.admit(context.id, key: key, now: time.now(), deadline: context.deadline) }
    }

    /// Hears the answer: measures the rate, cuts or grows it, reads the rate-limit fields.
    public func attemptDidEndSynchronously(_ outcome: AttemptOutcome, context: AttemptContext) {
        let now = context.time.now()
        let request: HTTPRequest
        let response: TransportResponse
        var signal = RateLimitRegistry.Signal.answered
        switch outcome {
        case .succeeded(let sent, let answer):
            (request, response) = (sent, answer)
        case .failed(let failure, let record):
            guard let answer = failure.response else { return }
            (request, response) = (failure.request, answer)
            if configuration.throttlingStatuses.contains(answer.status.code) {
                signal = .throttled(sentAt: now - record.duration)
            }
        case .refused, .cancelled, .abandoned:
            // Perhaps never sent: one left behind while it waited is still queued.
            registry.withLock { $0.leave(context.id) }
            return
        }
        let fields = RateLimitFields(response, now: { context.time.date() })
        let key = Self.key(of: request, context)
        registry.withLock { $0.observe(signal, fields: fields, key: key, now: now) }
    }

    /// The state of `key`'s bucket; a key never seen (or forgotten) does not limit.
    public func status(of key: String) -> Status {
        registry.withLock { registry in
            guard let bucket = registry.buckets[key] else {
                return Status(
                    isLimiting: false, rate: 0, capacity: 1, tokens: 0, measuredRate: 0, pausedUntil: nil, waiting: 0)
            }
            return Status(
                isLimiting: bucket.isLimiting, rate: bucket.rate, capacity: bucket.capacity, tokens: bucket.tokens,
                measuredRate: bucket.measuredRate,
                pausedUntil: bucket.pausedUntil.isFinite ? .seconds(bucket.pausedUntil) : nil,
                waiting: bucket.queue.count)
        }
    }

    /// The keys of the buckets the limiter remembers.
    public var keys: [String] { registry.withLock { Array($0.buckets.keys) } }

    private static func key(of request: HTTPRequest, _ context: AttemptContext) -> String {
        context.options.rateLimitKey ?? request.authority ?? ""
    }

    /// Counts a refusal, and says why the attempt was refused.
    private func refusal(of request: HTTPRequest, _ context: AttemptContext, wait: Duration) -> RecoveryError {
        let key = Self.key(of: request, context)
        countRefusal(key)
        let (whole, fraction) = wait.components
        let seconds = max(1, fraction > 0 ? whole + 1 : whole)
        var error = RecoveryError(
            .rateLimited,
            reason: "\(key) accepts fewer requests for now; attempt \(context.attempt) would wait \(seconds) s for its "
                + "turn, past the call's deadline, and was not sent.",
            context: ["key": "\(key)", "retryAfterSeconds": "\(seconds)"]
        )
        error.attachments.append(RateLimitWait(key: key, retryAfter: wait))
        return error
    }

    private func countRefusal(_ key: String) {
        guard metrics != nil else { return }
        registry.withLock { $0.counter("rebound_rate_limit_refusals_total", for: key) }?.increment()
    }
}

/// Attached to a ``RecoveryErrorCode/rateLimited`` error: which bucket refused the attempt and how
/// long it would have waited for a token.
public struct RateLimitWait: ErrorAttachment, Hashable {
    /// The bucket's key.
    public let key: String
    /// The wait for a token the attempt was refused.
    public let retryAfter: Duration

    init(key: String, retryAfter: Duration) {
        self.key = key
        self.retryAfter = retryAfter
    }
}

extension EndpointOptions {
    /// The bucket of ``AdaptiveRateLimitHandler`` that this endpoint's attempts take tokens from;
    /// `nil` (the default) means the request's host and port. Endpoints of one host with quotas
    /// of their own (a search API limited apart from the rest) may each have their own.
    public var rateLimitKey: String? {
        get { self[RateLimitKeyOption.self] }
        set { self[RateLimitKeyOption.self] = newValue }
    }
}

private enum RateLimitKeyOption: EndpointOptionKey {
    static let defaultValue: String? = nil
}
