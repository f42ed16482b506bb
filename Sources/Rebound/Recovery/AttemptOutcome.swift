public import HTTPTypes

/// How one prepared attempt ended: what ``RecoverableErrorHandler/attemptDidEnd(_:context:)``
/// hears, exactly once for every attempt whose ``RecoverableErrorHandler/prepare(_:context:)``
/// the handler was asked for.
///
/// ```
///  prepare ──► refused (by this or a later handler's prepare) ──────────► .refused
///     │
///     ▼
///   send ──► 2xx, decoded ───────────────────────────────────────────────► .succeeded
///     │──► failed ──► the handlers decide (unless it was the last attempt) ► .failed
///     │──► the task was cancelled ─────────────────────────────────────────► .cancelled
///     └──► another attempt of the same call won first ─────────────────────► .abandoned
/// ```
///
/// A handler that takes something in `prepare` (a permit, a probe slot) gives it back here, so
/// nothing leaks whichever way the attempt ends.
public enum AttemptOutcome: Sendable {
    /// The server answered with success and the answer was decoded: the request as it was sent,
    /// and the response (status, header fields, body and ``TransferInfo``).
    case succeeded(request: HTTPRequest, response: TransportResponse)
    /// The attempt failed. `record` says whether a handler decided to recover from it
    /// (``AttemptRecord/handler``); for the last attempt, and when the call ended before asking
    /// (its deadline, cancellation), none was asked. Boxed: a failure is large, and every
    /// outcome would take its room.
    indirect case failed(FailedAttempt, record: AttemptRecord)
    /// The call was cancelled while this attempt was prepared or in flight.
    case cancelled
    /// The attempt was never sent: a handler's `prepare` refused it (`handler` names it), or the
    /// deadline passed before it could be sent (`handler` is `nil`). `error` says why.
    case refused(handler: String?, error: any Error)
    /// Another attempt of the same call succeeded first, and this one was cancelled.
    case abandoned

    /// The answer's status, when the server answered.
    public var status: Int? {
        switch self {
        case .succeeded(_, let response): response.statusCode
        case .failed(let failure, _): failure.status?.code
        case .cancelled, .refused, .abandoned: nil
        }
    }
}
