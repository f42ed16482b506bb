public import HTTPTypes

/// Identifies one attempt of one call, unique in the process.
///
/// Handlers that hold something for an attempt between ``RecoverableErrorHandler/prepare(_:context:)``
/// and ``RecoverableErrorHandler/attemptDidEnd(_:context:)`` (a permit, a probe slot) key it by
/// this: every attempt a handler prepared ends in exactly one outcome, with the same id.
public struct AttemptID: Hashable, Sendable, CustomStringConvertible {
    /// The call's number, unique among the calls of every data manager in the process.
    public let call: UInt64
    /// The attempt's number within its call, from 1.
    public let attempt: Int

    /// Made by the pipeline; the package's own tools rebuild one from an `APIEvent`.
    package init(call: UInt64, attempt: Int) {
        self.call = call
        self.attempt = attempt
    }

    /// `17.2`: the second attempt of call 17.
    public var description: String { "\(call).\(attempt)" }
}

/// What a handler knows about the attempt it is asked about: which one it is, how much time the
/// call has left, the endpoint's options and the pipeline's time source.
public struct AttemptContext: Sendable {
    /// The attempt's identity.
    public let id: AttemptID
    /// The most attempts the call may make (its ``RequestLimits/maxAttempts``).
    public let maxAttempts: Int
    /// When the call must end, on ``time``'s monotonic clock (compare with `time.now()`).
    public let deadline: Duration
    /// The endpoint's options (``EndpointOptions``), for handlers with per-endpoint settings.
    public let options: EndpointOptions
    /// The request's method.
    public let method: HTTPRequest.Method
    /// The pipeline's clock and date.
    public let time: TimeSource
    /// The path under the base URL, with its query: kept private, since a query may hold secrets.
    private let path: String

    /// Creates a context; the pipeline makes one per attempt, tests may make their own.
    ///
    /// - Parameters:
    ///   - id: The attempt's identity.
    ///   - maxAttempts: The most attempts the call may make.
    ///   - deadline: When the call must end, on `time`'s monotonic clock.
    ///   - options: The endpoint's options.
    ///   - method: The request's method.
    ///   - path: The endpoint's path under the base URL (a query is left out of ``endpoint``).
    ///   - time: The pipeline's clock and date.
    init(
        id: AttemptID,
        maxAttempts: Int,
        deadline: Duration,
        options: EndpointOptions = EndpointOptions(),
        method: HTTPRequest.Method,
        path: String,
        time: TimeSource
    ) {
        self.id = id
        self.maxAttempts = maxAttempts
        self.deadline = deadline
        self.options = options
        self.method = method
        self.path = path
        self.time = time
    }

    /// The call as logs name it: the method and the path without its query, such as `GET /v1/tasks`.
    public var endpoint: String { endpointLabel(method: method, path: path) }

    /// The attempt's number, from 1.
    public var attempt: Int { id.attempt }

    /// Whether this is the call's last allowed attempt: its failure will not be retried.
    public var isLastAttempt: Bool { id.attempt >= maxAttempts }

    /// The time left before the deadline, now (negative once it has passed).
    public var timeLeft: Duration { deadline - time.now() }
}
