/// How an endpoint's calls are hedged: when the first attempt has not answered after a delay,
/// another is sent beside it, and the first success wins.
///
/// Hedging cuts the tail of an endpoint's latency (the answer that stalls behind a garbage
/// collection, a slow disk or a lost packet) at the cost of a few extra attempts. It follows
/// gRPC's hedging policy (proposal A6):
///
/// - The first attempt goes out; if it has not answered after ``delay``, a hedge goes out beside
///   it, and after each attempt sent the next hedge is due after the same delay, while fewer than
///   `1 + maxHedges` attempts are in flight.
/// - The first success wins: the other attempts are cancelled at once (their transfers removed)
///   and their handlers hear ``AttemptOutcome/abandoned``.
/// - A failure that a handler would retry sends the next attempt at once, without the handler's
///   wait: a hedged endpoint is not also retried with backoff.
/// - Every attempt counts toward the call's ``RequestLimits/maxAttempts``, and every attempt's
///   time toward its deadline.
/// - A hedge goes out only while the retry budget (``budget``) holds more than half its tokens,
///   the threshold at which it stops retries: when attempts fail, hedging stops adding load.
///
/// ```
///  0 ──── send #1 ──────────────────────────── (no answer yet) ── cancelled, abandoned
///  delay ──────────── send #2 ── 200 ── the call's value
/// ```
///
/// Only a request that may be sent twice is hedged: an idempotent method (GET, HEAD, OPTIONS,
/// PUT, DELETE, TRACE; ``BackendTemporaryErrorHandler/idempotentMethods``) or one whose endpoint
/// carries an `Idempotency-Key` header field (``BackendTemporaryErrorHandler/idempotencyKey``).
/// The decision is made from the endpoint before its first attempt is prepared, so a key that a
/// handler's `prepare` adds does not count. Any other call is sent as if the endpoint had no
/// policy.
///
/// Set it per endpoint, in its ``EndpointOptions/hedging`` or with ``Endpoint/hedged(_:)``:
///
/// ```swift
/// var options = EndpointOptions()
/// options.hedging = HedgingPolicy(delay: .fixed(.milliseconds(100)))
/// ```
///
/// | setting | default | why |
/// |---|---|---|
/// | ``delay`` | the endpoint's observed p90, over its last 100 successful calls, each timed from its earliest attempt in flight (a hedge that won, from the attempt it was sent beside); 1 s until 10 are seen | only the slowest tenth of attempts is hedged, so hedges add about 10 % to the load while the tail beyond the 90th percentile is cut; 100 answers give a stable p90 and follow a change within 100 calls; 1 s (Polly's default is 2 s) is above most APIs' answers, so an endpoint with no history is rarely hedged |
/// | ``maxHedges`` | 1 | Polly's default: one hedge cuts most of the tail (two slow answers in a row are rare), and each more adds load; at most 4 (gRPC caps a call at 5 attempts) |
/// | ``budget`` | the budget of the data manager's ``BackendTemporaryErrorHandler`` | the budget that already measures the service's failures |
public struct HedgingPolicy: Sendable {
    /// When a hedge is due.
    public enum Delay: Sendable, Hashable {
        /// After this long without an answer (at least 1 ms).
        case fixed(Duration)
        /// After the 90th percentile of the durations of the endpoint's last `window` successful
        /// attempts (10 to 1,000 of them), as this data manager measured them; after `initial`
        /// until 10 have been seen.
        ///
        /// An endpoint is its method and path template (`GET /v1/tasks/{}`); a data manager keeps
        /// the durations of at most 256 endpoints, and any further endpoint waits `initial`.
        case observedP90(window: Int = 100, initial: Duration = .seconds(1))
    }

    /// When a hedge is due.
    public var delay: Delay
    /// The most attempts sent beside one still in flight (1 to 4; a value outside is clamped
    /// when used): at most `1 + maxHedges` attempts are in flight at once, and at most the call's
    /// ``RequestLimits/maxAttempts`` in all.
    public var maxHedges: Int
    /// The retry budget that allows hedges: one goes out only while it holds more than half its
    /// tokens. `nil` uses the ``BackendTemporaryErrorHandler/budget`` of the first
    /// ``BackendTemporaryErrorHandler`` taking part in the call; without one, only ``maxHedges``
    /// and the call's limits bound the hedges.
    public var budget: RetryBudget?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - delay: When a hedge is due; see the table above.
    ///   - maxHedges: The most attempts sent beside one in flight, clamped to 1...4.
    ///   - budget: The budget that allows hedges; `nil` for the data manager's
    ///     ``BackendTemporaryErrorHandler``'s.
    public init(delay: Delay = .observedP90(), maxHedges: Int = 1, budget: RetryBudget? = nil) {
        self.delay = delay
        self.maxHedges = Self.clamp(maxHedges)
        self.budget = budget
    }

    /// `maxHedges` within 1...4.
    static func clamp(_ maxHedges: Int) -> Int {
        min(max(maxHedges, 1), 4)
    }

    /// Whether `budget` allows another hedge: it holds more than half its tokens.
    static func allows(_ budget: RetryBudget?) -> Bool {
        guard let budget else { return true }
        return budget.tokens * 2 > budget.maxTokens
    }
}

extension EndpointOptions {
    /// How this endpoint's calls are hedged; `nil` (the default) sends one attempt at a time.
    ///
    /// Only a request that may be sent twice is hedged (``HedgingPolicy``).
    public var hedging: HedgingPolicy? {
        get { self[HedgingKey.self] }
        set { self[HedgingKey.self] = newValue }
    }
}

extension Endpoint {
    /// This endpoint with its calls hedged by `policy` (``EndpointOptions/hedging``).
    ///
    /// - Parameter policy: When hedges go out, and how many; by default after the endpoint's
    ///   observed p90, one at a time.
    /// - Returns: The endpoint, hedged.
    public func hedged(_ policy: HedgingPolicy = HedgingPolicy()) -> Self {
        var copy = self
        copy.options.hedging = policy
        return copy
    }
}

private enum HedgingKey: EndpointOptionKey {
    static let defaultValue: HedgingPolicy? = nil
}
