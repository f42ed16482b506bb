public import CoreMetrics
import Synchronization

/// A token bucket, shared by all requests of one client, that stops retries when most attempts fail.
///
/// Per-request retry limits don't protect a server that is down: every request still retries as
/// often as its own limit allows, multiplying the load exactly when the server can least take it.
/// A budget limits retries across the whole client instead, following gRPC's retry throttling
/// (gRPC proposal A6, "gRPC Retry Design"):
///
/// - The bucket starts full, at ``maxTokens``.
/// - Every attempt that fails in a way that could be retried costs one token (never going below
///   zero): ``recordFailure()``.
/// - Every attempt that succeeds refunds ``tokenRatio`` of a token (never going above
///   ``maxTokens``): ``recordSuccess()``.
/// - An attempt that fails in a way no retry would fix (a 404, a validation error) calls neither:
///   it says nothing about whether the server can take more load.
/// - A retry is allowed only while more than half the bucket is left: `tokens > maxTokens / 2`.
///
/// ``recordFailure()`` withdraws the token *and* answers whether to retry, in one atomic step.
/// There is deliberately no separate "may I retry?" call: two requests failing at once could
/// otherwise both see the bucket above the threshold and both retry, and a caller could ask
/// without paying or pay without asking.
///
/// ```
/// attempt ──▶ succeeded ──▶ recordSuccess()
///    │
///    ├──▶ failed, not retryable ──▶ fail (the budget is not told)
///    │
///    └──▶ failed, retryable ──▶ recordFailure() ──true──▶ wait (Backoff, Retry-After), retry
///                                       │
///                                     false ──▶ fail without retrying
/// ```
///
/// ## Bounds
///
/// Because each granted retry left more than `maxTokens / 2` behind after paying its token, and
/// only successes add tokens, the number of retries ever granted, whatever the order of events, is
/// *less than* `maxTokens / 2 + tokenRatio × successes`. Against a server that fails everything a
/// client makes fewer than `maxTokens / 2` retries in total, and under partial failure retries add
/// at most about `tokenRatio` to the load of successful requests: amplification of about
/// `1 + tokenRatio` instead of `1 + retries per request`.
///
/// ## Defaults
///
/// `maxTokens` 10 and `tokenRatio` 0.1 are the values of gRPC's example configuration. A full
/// bucket lets a client ride out a short outage with up to 4 retries in a row (10 → 6 tokens)
/// before it throttles, and a budget then earns one retry per 10 successful attempts, so retries
/// never add more than about 10 % to a client's load.
///
/// Tokens are counted in thousandths, as gRPC does (its ratio has at most three decimal places),
/// so refunds of 0.1 add up exactly, without the drift of binary fractions. The type is thread-safe
/// and takes no lock: the count is one atomic integer, and a success while the bucket is full (the
/// common case) only reads it, so requests on many threads do not contend for it. Share one
/// instance between all requests to the same service.
public final class RetryBudget: Sendable {
    /// The capacity of the bucket, and its initial content.
    ///
    /// Clamped into `0...1000` (gRPC's range) and rounded to thousandths; NaN becomes 0. Zero
    /// disables retries.
    public let maxTokens: Double
    /// The fraction of a token refunded by each success.
    ///
    /// Clamped into `0.001...1000` and rounded to thousandths; NaN becomes 0.001. It is never zero,
    /// which would leave a drained budget drained for good.
    public let tokenRatio: Double

    private let maxMilliTokens: Int
    private let refundMilliTokens: Int
    private let milliTokens: Atomic<Int>
    /// `rebound_retry_budget_tokens{budget}`: the tokens after each change; `nil` without metrics.
    private let gauge: Gauge?

    private static let milli = 1_000

    /// Creates a full budget.
    ///
    /// - Parameters:
    ///   - maxTokens: The bucket's capacity. Default 10, gRPC's example value.
    ///   - tokenRatio: The refund per success. Default 0.1, gRPC's example value.
    ///   - name: The `budget` label of the `rebound_retry_budget_tokens` gauge, which holds the
    ///     tokens after each change: give each budget of the app its own.
    ///   - metricsFactory: Where the gauge goes; `nil` uses the process's `MetricsSystem` (with
    ///     its no-op factory, there is no gauge at all).
    public init(
        maxTokens: Double = 10, tokenRatio: Double = 0.1, name: String = "default",
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        maxMilliTokens = Self.milliTokens(maxTokens, in: 0...1_000, ifNaN: 0)
        refundMilliTokens = Self.milliTokens(tokenRatio, in: 0.001...1_000, ifNaN: 0.001)
        self.maxTokens = Double(maxMilliTokens) / Double(Self.milli)
        self.tokenRatio = Double(refundMilliTokens) / Double(Self.milli)
        milliTokens = Atomic(maxMilliTokens)
        let factory = metricsFactory ?? MetricsSystem.factory
        gauge =
            factory is NOOPMetricsHandler
            ? nil : Gauge(label: "rebound_retry_budget_tokens", dimensions: [("budget", name)], factory: factory)
        gauge?.record(self.maxTokens)
    }

    /// The tokens in the bucket now, in `0...maxTokens`.
    public var tokens: Double {
        Double(milliTokens.load(ordering: .relaxed)) / Double(Self.milli)
    }

    /// Records a successful attempt, refunding ``tokenRatio`` of a token.
    ///
    /// Call it once for every attempt that succeeded, first attempts and retries alike.
    public func recordSuccess() {
        _ = update { min(maxMilliTokens, $0 + refundMilliTokens) }
    }

    /// Records an attempt that failed in a retryable way, withdrawing a token, and says whether
    /// the budget allows retrying it.
    ///
    /// Call it once for every retryable failure, the last attempt's included (the budget must see
    /// every failure to measure the failure rate), and retry only if it returns `true` and the
    /// request's own limits allow it.
    ///
    /// - Returns: Whether more than half the bucket is left after the withdrawal.
    @discardableResult
    public func recordFailure() -> Bool {
        let tokens = update { max(0, $0 - Self.milli) }
        return tokens * 2 > maxMilliTokens
    }

    /// Replaces the count with `change(count)` in one atomic step, and returns the new count.
    ///
    /// A change that leaves the count as it is (a refund to a full bucket, a withdrawal from an
    /// empty one) writes nothing.
    private func update(_ change: (Int) -> Int) -> Int {
        var current = milliTokens.load(ordering: .relaxed)
        while true {
            let new = change(current)
            if new == current { return current }
            let (exchanged, original) = milliTokens.compareExchange(
                expected: current, desired: new, ordering: .relaxed)
            if exchanged {
                gauge?.record(Double(new) / Double(Self.milli))
                return new
            }
            current = original
        }
    }

    private static func milliTokens(_ value: Double, in range: ClosedRange<Double>, ifNaN fallback: Double) -> Int {
        let clamped = value.isNaN ? fallback : min(max(value, range.lowerBound), range.upperBound)
        return Int((clamped * Double(milli)).rounded())
    }
}
