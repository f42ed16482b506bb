/// Chooses a message for chains it recognises.
///
/// A presenter asks its rules in order and uses the first that matches; rules read the
/// ``ErrorChain``, so they work as well on a chain decoded from a report as on a live error.
///
/// ```swift
/// let blocked = PresentationRule(UserMessage("accountBlocked", actions: [.contactSupport])) {
///     $0.contains(BackendErrorCode.accountBlocked)
/// }
/// let presenter = ErrorPresenter(rules: [blocked] + PresentationRule.standard)
/// ```
public struct PresentationRule: Sendable {
    /// The message to show when the rule matches.
    public var message: UserMessage
    /// Whether the rule applies to a chain.
    public var matches: @Sendable (ErrorChain) -> Bool

    public init(_ message: UserMessage, matches: @escaping @Sendable (ErrorChain) -> Bool) {
        self.message = message
        self.matches = matches
    }

    /// A rule that matches chains containing any of `codes`.
    public static func when<Code: ErrorCode>(_ codes: Code..., show message: UserMessage) -> PresentationRule {
        PresentationRule(message) { chain in codes.contains { chain.contains($0) } }
    }

    /// A rule that matches chains with a link of `code` whose context says `retryAfterSeconds`,
    /// which the message's `{retryAfterSeconds}` shows.
    static func whenTimed(_ code: RecoveryErrorCode, show message: UserMessage) -> PresentationRule {
        PresentationRule(message) { chain in
            chain.links.contains { link in
                link.domain == RecoveryErrorCode.domain && link.code == code.rawValue
                    && link.context.contains { $0.key == "retryAfterSeconds" }
            }
        }
    }

    /// Rebound's rules for its built-in layers, most specific first.
    ///
    /// | the chain contains | message |
    /// |---|---|
    /// | a cancellation (`NE14`, `RE40`, `CancellationError`) | cancelled |
    /// | a failed, rejected or exhausted captcha (`RE20`–`RE22`), `BE` captchaInvalid | verificationFailed |
    /// | a failed or rejected refresh (`RE10`–`RE13`), `HT401`, `BE` tokenExpired/unauthorized | sessionExpired |
    /// | `BE` unsupportedClientVersion, `HT426` | updateRequired |
    /// | an open circuit (`RE50`) | circuitOpen, with the seconds until the next probe |
    /// | an isolated circuit (`RE51`), or an open one without its time | serviceUnavailable |
    /// | a full concurrency limit (`RE52`) | rateLimited |
    /// | a rate limiter's wait past the deadline (`RE53`) | rateLimitWait, with the seconds of the wait (rateLimited without them) |
    /// | `HT429`, `BE` rateLimited | rateLimited |
    /// | `HT502`, `HT503`, `HT504`, `BE` temporarilyUnavailable | serviceUnavailable |
    /// | `BE` validationFailure, `HT422` | invalidInput |
    /// | `NE` timeout or stalled | timedOut |
    /// | `NE` tlsFailure | insecureConnection |
    /// | `NE` cannotResolveHost, cannotConnect, connectTimeout, connectionReset, incompleteResponse, sendFailed | noConnection |
    /// | an exhausted retry budget (`RE4`) over none of the above | rateLimited |
    ///
    /// Anything else gets ``UserMessage/generic``: not recoverable, shown with its error code.
    public static let standard: [PresentationRule] = [
        PresentationRule(.cancelled) { chain in
            chain.contains(NetworkErrorCode.cancelled) || chain.contains(RecoveryErrorCode.cancelled)
                || chain.links.contains { $0.domain == "CancellationError" }
        },
        .when(
            RecoveryErrorCode.captchaCancelled, .captchaFailed, .captchaAttemptsExhausted,
            show: .verificationFailed
        ),
        .when(BackendErrorCode.captchaInvalid, show: .verificationFailed),
        .when(
            RecoveryErrorCode.refreshFailed, .refreshRejected, .tooManyRefreshes, .noCredential,
            show: .sessionExpired
        ),
        .when(HTTPStatusCode.no401Unauthorized, show: .sessionExpired),
        .when(BackendErrorCode.tokenExpired, .unauthorized, show: .sessionExpired),
        .when(BackendErrorCode.unsupportedClientVersion, show: .updateRequired),
        .when(HTTPStatusCode.no426UpgradeRequired, show: .updateRequired),
        // Before the statuses: the refusal is what happened to this call, whatever failed before.
        .whenTimed(RecoveryErrorCode.circuitOpen, show: .circuitOpen),
        // An open circuit without its time (a chain made by hand) still says the service is down.
        .when(RecoveryErrorCode.circuitOpen, .circuitIsolated, show: .serviceUnavailable),
        .when(RecoveryErrorCode.concurrencyLimitReached, show: .rateLimited),
        .whenTimed(RecoveryErrorCode.rateLimited, show: .rateLimitWait),
        .when(RecoveryErrorCode.rateLimited, show: .rateLimited),
        .when(HTTPStatusCode.no429TooManyRequests, show: .rateLimited),
        .when(BackendErrorCode.rateLimited, show: .rateLimited),
        .when(
            HTTPStatusCode.no502BadGateway, .no503ServiceUnavailable, .no504GatewayTimeout,
            show: .serviceUnavailable
        ),
        .when(BackendErrorCode.temporarilyUnavailable, show: .serviceUnavailable),
        .when(BackendErrorCode.validationFailure, show: .invalidInput),
        .when(HTTPStatusCode.no422UnprocessableContent, show: .invalidInput),
        .when(NetworkErrorCode.timeout, .stalled, show: .timedOut),
        .when(NetworkErrorCode.tlsFailure, show: .insecureConnection),
        .when(
            NetworkErrorCode.cannotResolveHost, .cannotConnect, .connectTimeout, .connectionReset,
            .incompleteResponse, .sendFailed,
            show: .noConnection
        ),
        // Last: what failed beneath it says more (a 503 is an unavailable service, not the
        // person's doing); only a failure without a message of its own is shown as a wait.
        .when(RecoveryErrorCode.retryBudgetExhausted, show: .rateLimited),
    ]
}
