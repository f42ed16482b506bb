public import HTTPTypes

/// A call that failed for good, as ``RecoverableErrorHandler/staleAnswer(for:)`` sees it: what
/// was asked, and why it failed.
public struct FailedCall: Sendable {
    /// The call's request as the endpoint describes it (method, URL, the endpoint's own header
    /// fields), before the handlers prepared it.
    public var request: HTTPRequest
    /// The endpoint's options, such as ``EndpointOptions/staleIfError``.
    public var options: EndpointOptions
    /// The failure the caller's API error would wrap: the last attempt's failure, or a
    /// ``RecoveryError`` over it.
    public var error: any Error
    /// Every attempt of the call, oldest first (none when it failed before its first was sent).
    public var history: [AttemptRecord]
    /// The pipeline's clock and date.
    public var time: TimeSource

    init(
        request: HTTPRequest, options: EndpointOptions, error: any Error, history: [AttemptRecord], time: TimeSource
    ) {
        self.request = request
        self.options = options
        self.error = error
        self.history = history
        self.time = time
    }

    /// The failure's chain.
    public var chain: ErrorChain { ErrorChain(error) }
}
