/// Decides whether, and how long, to honour a server's `Retry-After`.
///
/// A server's request is honoured exactly when it is reasonable, shortened when it is not, and
/// refused when the request's deadline cannot accommodate it:
///
/// ```
/// requested ──▶ clamp to 0...maximum ──▶ longer than timeLeft? ──yes──▶ .exceedsDeadline
///                                                 │
///                                                 no
///                                                 ▼
///                                         .wait(clamped)
/// ```
///
/// A request for more than ``maximum`` is *capped*, not refused: the server has said that a retry
/// can succeed later, and retrying after the maximum still gives it the longest pause this client
/// is willing to make, whereas giving up would turn a transient refusal into a failure. A wait
/// that would outlast the caller's deadline fails at once instead, since sleeping only to time out
/// would waste the time and then fail anyway.
///
/// The default ``maximum`` is 60 s: rate limits are most often counted per minute, so a 429's
/// `Retry-After` rarely needs more than a minute to clear, and an interactive client silent for
/// longer appears hung; it also matches the 60 s default ``TransportOptions/timeout`` of a request.
///
/// ```swift
/// let policy = RetryAfterPolicy()
/// if let requested = RetryAfter.parse(value, now: Date()) {
///     switch policy.wait(requested: requested, timeLeft: .seconds(30)) {
///     case .wait(let duration): try await clock.sleep(for: duration)
///     case .exceedsDeadline: throw error
///     }
/// }
/// ```
public struct RetryAfterPolicy: Sendable, Hashable {
    /// The longest wait honoured; a longer request is shortened to this. Default 60 s.
    ///
    /// A negative maximum is treated as zero.
    public var maximum: Duration

    /// Creates a policy.
    ///
    /// - Parameter maximum: The longest wait honoured. Default 60 s, for the reasons on the type.
    public init(maximum: Duration = .seconds(60)) {
        self.maximum = maximum
    }

    /// What to do about a server's requested wait.
    public enum Decision: Sendable, Hashable {
        /// Wait this long, then retry: the request itself, or ``RetryAfterPolicy/maximum`` if the
        /// request was longer.
        case wait(Duration)
        /// Fail now: even the capped wait is longer than the time left before the deadline.
        /// `requested` is the server's request as given, before capping, for the error report.
        case exceedsDeadline(requested: Duration, timeLeft: Duration)
    }

    /// Decides how to respond to a requested wait, given the time left before the deadline.
    ///
    /// The wait is `requested` clamped to `0...maximum`. It is ``Decision/exceedsDeadline(requested:timeLeft:)``
    /// when that wait is strictly longer than `timeLeft`, and ``Decision/wait(_:)`` otherwise; a
    /// wait that ends exactly at the deadline is allowed.
    ///
    /// - Parameters:
    ///   - requested: The server's requested wait, as from ``RetryAfter/parse(_:now:)``; a negative
    ///     value is treated as zero.
    ///   - timeLeft: The time left before the request's deadline, or `nil` if it has none. A
    ///     negative value (the deadline has passed) refuses every wait, zero included.
    /// - Returns: The decision.
    public func wait(requested: Duration, timeLeft: Duration?) -> Decision {
        let wait = min(max(.zero, requested), max(.zero, maximum))
        if let timeLeft, wait > timeLeft {
            return .exceedsDeadline(requested: requested, timeLeft: timeLeft)
        }
        return .wait(wait)
    }
}
