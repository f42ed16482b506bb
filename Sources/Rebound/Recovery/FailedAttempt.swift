public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One failed attempt, as handlers see it.
public struct FailedAttempt: Sendable {
    /// The failure, classified into Rebound's layers: a ``NetworkError``, an ``HTTPError`` (under
    /// a ``BackendError`` when the body carried the backend's error payload), or a ``JSONError``.
    public var error: any Error
    /// The request that was sent, as it was sent (after every handler's ``RecoverableErrorHandler/prepare(_:)``).
    public var request: HTTPRequest
    /// The request body.
    public var body: Data?
    /// The response, when one arrived.
    public var response: TransportResponse?
    /// The attempt: its id and number, the deadline, the endpoint's options, the time source.
    public var context: AttemptContext
    /// Time left before the request's deadline when the attempt failed.
    public var timeLeft: Duration
    /// How long the pipeline waited before sending this attempt.
    public var delayBefore: Duration
    /// The earlier attempts of this request, oldest first (this one not included).
    public var history: [AttemptRecord]

    init(
        error: any Error,
        request: HTTPRequest,
        body: Data?,
        response: TransportResponse?,
        context: AttemptContext,
        timeLeft: Duration,
        delayBefore: Duration = .zero,
        history: [AttemptRecord]
    ) {
        self.error = error
        self.request = request
        self.body = body
        self.response = response
        self.context = context
        self.timeLeft = timeLeft
        self.delayBefore = delayBefore
        self.history = history
    }

    /// The number of the attempt that failed, from 1.
    public var attempt: Int { context.attempt }

    /// The failure's chain.
    public var chain: ErrorChain { ErrorChain(error) }

    /// The response's status, when a response arrived.
    public var status: HTTPResponse.Status? { response?.status }

    /// How many times `handler` acted on this request before.
    public func recoveries(by handler: String) -> Int {
        history.count { $0.handler == handler }
    }
}
