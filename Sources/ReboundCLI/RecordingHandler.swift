import HTTPTypes
import Rebound

/// Forwards to a handler and records what it decided about every failed attempt.
///
/// A failed call carries its ``AttemptHistory``, but a successful one returns only its response.
/// The attempts before a success are exactly the failures the handler was asked about and chose
/// to retry, so recording its answers rebuilds the history of a success, with the chains as the
/// pipeline classified them:
///
/// ```
/// pipeline ─► RecordingHandler.recover ─► BackendTemporaryErrorHandler.recover
///                    │ records number, status, chain, wait before, decision
///                    ▼
///   success: recorded failures + the successful attempt (after the last decided wait)
/// ```
///
/// It answers to the inner handler's ``name``: the inner handler counts its own earlier
/// recoveries by name in the history, which is how its backoff knows the retry number.
struct RecordingHandler: RecoverableErrorHandler {
    private struct Log {
        var attempts: [FetchAttempt] = []
        /// The wait the last decision chose, which comes before the next attempt.
        var nextDelay: Duration = .zero
    }

    /// The handler that decides.
    let inner: any RecoverableErrorHandler
    private let log = Locked(Log())

    init(_ inner: any RecoverableErrorHandler) {
        self.inner = inner
    }

    var name: String { inner.name }

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        // A throw ends the call; its error carries the history, so nothing needs recording.
        let decision = try await inner.recover(from: failure)
        var attempt = FetchAttempt(
            number: failure.attempt,
            status: failure.status?.code,
            error: failure.chain.short,
            delayBefore: failure.delayBefore
        )
        var delay = Duration.zero
        if case .didHandle(let plan) = decision {
            attempt.handler = name
            delay = plan.delay
        }
        log.withLock { log in
            log.attempts.append(attempt)
            log.nextDelay = delay
        }
        return decision
    }

    // Declared as the requirements are (Swift would infer it for these witnesses), so that it
    // reads plainly that wrapping a handler adds no executor hop.
    nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws {
        try await inner.prepare(&request)
    }

    nonisolated(nonsending) func attemptDidSucceed(_ request: HTTPRequest) async {
        await inner.attemptDidSucceed(request)
    }

    /// Every attempt of a call that succeeded with `status`: the failures retried before it, then
    /// the success itself.
    func attempts(succeededWith status: Int) -> [FetchAttempt] {
        log.withLock { log in
            log.attempts + [
                FetchAttempt(number: log.attempts.count + 1, status: status, error: nil, delayBefore: log.nextDelay)
            ]
        }
    }
}
