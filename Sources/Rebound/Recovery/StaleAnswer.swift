/// An earlier successful answer, given in place of a call's failure
/// (``RecoverableErrorHandler/staleAnswer(for:)``).
public struct StaleAnswer: Sendable {
    /// The answer as it was received: its status, header fields, body and ``TransferInfo``.
    public var response: TransportResponse
    /// How long ago it was received, on the pipeline's clock.
    public var age: Duration

    public init(response: TransportResponse, age: Duration) {
        self.response = response
        self.age = age
    }
}

/// Why a successful call's value is not fresh: it is an earlier answer, given because the call
/// failed (``APIResponse/staleness``).
public struct Staleness: Sendable {
    /// How long ago the answer was received, on the pipeline's clock.
    public var age: Duration
    /// The handler that gave it, such as `StaleIfErrorHandler`.
    public var handler: String
    /// The failure it stands in for: what the call would otherwise have thrown as its cause.
    public var failure: any Error

    @usableFromInline
    init(age: Duration, handler: String, failure: any Error) {
        self.age = age
        self.handler = handler
        self.failure = failure
    }
}
