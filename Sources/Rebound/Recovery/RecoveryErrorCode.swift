/// The recovery layer's error: the pipeline tried to recover from a failure and gave up.
///
/// This is the `RE` layer. It wraps the last failure it tried to recover from as its cause, so a
/// chain reads what recovery gave up on and why: `RecoveryError.retriesExhausted -
/// HTTPError.no503ServiceUnavailable`.
public typealias RecoveryError = LayerError<RecoveryErrorCode>

/// The codes of ``RecoveryError``.
///
/// Grouped by decade: retrying (1–9), credentials (10s), captcha (20s), handlers (30s),
/// cancellation (40s), overload protection (50–69). The raw values are stable identities: they never change and a retired one
/// is never reused.
public enum RecoveryErrorCode: Int, ErrorCode, CaseIterable {
    public static let domain = "RecoveryError"
    public static let shortName = "RE"

    // MARK: Retrying

    /// Every attempt the retry policy allows failed; the cause is the last failure.
    case retriesExhausted = 1
    /// The operation's deadline passed before it could succeed.
    case deadlineExceeded = 2
    /// The server asked to retry after a delay (`Retry-After`) that ends after the deadline, so
    /// waiting could not help.
    case retryAfterBeyondDeadline = 3
    /// The shared retry budget is spent: too many requests are failing at once, and retrying them
    /// all would only add load to a server that is already struggling.
    case retryBudgetExhausted = 4
    /// The request is not idempotent and carries no idempotency key, so sending it again could do
    /// its work twice.
    case notRetryable = 5

    // MARK: Credentials

    /// Refreshing the credential failed (the refresh request itself failed; its error is the cause).
    case refreshFailed = 10
    /// The backend answered 401 again right after a fresh credential: refreshing once more cannot help.
    case refreshRejected = 11
    /// The credential was refreshed more times within a short window than allowed, which points at a loop.
    case tooManyRefreshes = 12
    /// The request needs a credential and there is none (nobody is signed in).
    case noCredential = 13

    // MARK: Captcha

    /// The person dismissed the captcha instead of answering it.
    case captchaCancelled = 20
    /// Getting or submitting the captcha failed (its error is the cause).
    case captchaFailed = 21
    /// The backend asked for a captcha on this request more times than allowed.
    case captchaAttemptsExhausted = 22

    // MARK: Handlers

    /// A recovery handler threw instead of answering whether it handled the failure.
    case handlerFailed = 30

    // MARK: Cancellation

    /// The operation's task was cancelled while recovery was waiting or retrying.
    case cancelled = 40

    // MARK: Overload protection

    /// The circuit breaker for the request's service is open: recent attempts failed so often
    /// that this one was not sent. The context's `retryAfterSeconds` says when the next probe may
    /// go through; ``CircuitOpen`` carries it as a duration.
    case circuitOpen = 50
    /// The circuit breaker for the request's service was isolated (forced open) by the app, so
    /// no attempt goes through until it is reset.
    case circuitIsolated = 51
    /// The concurrency limit (bulkhead) was reached and its queue was full, or the call's deadline
    /// passed before an attempt could start: the attempt was not sent.
    case concurrencyLimitReached = 52
    /// The client-side rate limiter (``AdaptiveRateLimitHandler``) would have had the attempt wait
    /// for its turn past the call's deadline, so it was not sent: the service throttled recent
    /// attempts. The context's `retryAfterSeconds` says how long the wait would have been;
    /// ``RateLimitWait`` carries it as a duration.
    case rateLimited = 53
}
