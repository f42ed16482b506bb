public import HTTPTypes

/// A handler's answer about a failed attempt.
public enum RecoveryDecision: Sendable {
    /// Not this handler's kind of failure: ask the next handler.
    case cannotHandle
    /// Recovered, potentially: send the request again as the plan says.
    case didHandle(RetryPlan)

    /// Send again at once, unchanged.
    public static var retryNow: RecoveryDecision { .didHandle(RetryPlan()) }

    /// Send again after `delay`, optionally with an adjusted request.
    public static func retry(after delay: Duration, with request: HTTPRequest? = nil) -> RecoveryDecision {
        .didHandle(RetryPlan(delay: delay, request: request))
    }
}

/// How to send a request again.
public struct RetryPlan: Sendable {
    /// How long to wait first; the pipeline fails at once rather than wait past the deadline.
    public var delay: Duration
    /// The request to send instead of the failed one, if the handler adjusted it.
    public var request: HTTPRequest?

    public init(delay: Duration = .zero, request: HTTPRequest? = nil) {
        self.delay = delay
        self.request = request
    }
}
