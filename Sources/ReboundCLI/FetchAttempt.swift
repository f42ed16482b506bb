import Rebound

/// One attempt of a `fetch`, as the tool reports it.
struct FetchAttempt: Hashable, Sendable {
    /// The attempt's number, from 1.
    var number: Int
    /// The response status, if a response arrived.
    var status: Int?
    /// The short chain of the attempt's failure, such as `HT503` or `NE6`; `nil` for a success.
    var error: String?
    /// How long the pipeline waited before sending this attempt.
    var delayBefore: Duration
    /// The handler that decided to send again after this attempt, if one did.
    var handler: String?
}

extension FetchAttempt {
    /// The attempt as the pipeline recorded it in the call's ``AttemptHistory``.
    init(_ record: AttemptRecord) {
        self.init(
            number: record.number,
            status: record.status,
            error: record.error,
            delayBefore: record.delayBefore,
            handler: record.handler
        )
    }
}
