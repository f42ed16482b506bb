public import HTTPTypes

/// Answers a GET that failed because the service is down with the last good answer, marked
/// stale with its age: stale-if-error (RFC 5861), for the endpoints that opt in.
///
/// An endpoint opts in with the most staleness it accepts (``EndpointOptions/staleIfError``):
///
/// ```swift
/// let tasks = Endpoint<[TaskItem], APIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed)
///     .staleIfError(upTo: .seconds(600))
/// ```
///
/// ```
///  GET succeeds ──► attemptDidEnd(.succeeded) ──► kept under (scope, URL), replacing the one before
///
///  GET fails for good ──► staleAnswer(for:) ──► a 500–504 or network chain (or an open circuit),
///                                              an answer kept under (scope, URL),
///                                              at most staleIfError old
///                               │ yes                                  │ no
///                               ▼                                      ▼
///              the call returns it: APIResponse.staleness       the call throws its failure
/// ```
///
/// Only GETs, and only their successful, decoded answers, are kept. ``APIDataManager/send(_:fileID:line:)``
/// returns a stale value as it does a fresh one; ``APIDataManager/response(for:fileID:line:)``
/// says it is stale (``APIResponse/staleness``: its age, this handler, the failure it stands in
/// for). A call that is cancelled, that fails with another chain (a 404, a decoding failure), or
/// whose answer is older than the endpoint allows, fails as it would without the handler. The
/// data manager logs every call it answered so (`request failed, answered stale`, with the
/// chain and the age) and counts it in `rebound_stale_answers_total`.
///
/// **Scope.** Answers are kept per URL (its query included; URLs are never logged) and per scope,
/// which the app supplies: its user's identity, read when an attempt is prepared (so that an
/// answer is kept under the identity it was requested with) and again when a failed call is
/// answered. Without a scope, an answer to a request that carried a credential
/// (``Configuration/credentialFields``: `Authorization`, `Cookie`) is never kept, nor one marked
/// `Cache-Control: private`; `no-store` is never kept at all. Call ``removeAll(inScope:)`` when a
/// person signs out.
///
/// ```swift
/// let stale = StaleIfErrorHandler(scope: { session.userID })
/// ```
///
/// The answers are bounded in number and bytes (``Configuration``), the least recently stored
/// or given forgotten first. The key is the URL alone: an endpoint whose answers differ by other
/// header fields (`Accept-Language`) should not opt in, or should put them in the scope. Age is
/// measured on the pipeline's clock from when the answer was received.
///
/// Its place in the handler list does not matter: it recovers from nothing, refuses nothing,
/// and is asked only once a call has failed for good.
public final class StaleIfErrorHandler: RecoverableErrorHandler, Sendable {
    public let name = "StaleIfErrorHandler"
    public let configuration: Configuration
    private let store: Locked<StaleAnswerStore>
    private let scope: (@Sendable () -> String?)?

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - configuration: Which failures an earlier answer stands in for, and how much is kept.
    ///   - scope: The identity whose answers a call gets, such as the signed-in user's id; `nil`
    ///     (or a closure answering `nil`) keeps only answers to requests without credentials.
    public init(configuration: Configuration = .default, scope: (@Sendable () -> String?)? = nil) {
        self.configuration = configuration
        self.store = Locked(StaleAnswerStore(configuration: configuration))
        self.scope = scope
    }

    /// Every hook is a few lines under a lock: none suspends.
    public var hooks: HandlerHooks { [.prepareSynchronously, .attemptDidEndSynchronously, .staleAnswer] }

    /// It recovers from nothing: it answers calls that failed for good.
    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    /// Reads the scope of an opted-in GET's attempt, to keep its answer under it.
    public func prepareSynchronously(
        _ request: inout HTTPRequest, context: AttemptContext
    ) throws -> SynchronousPreparation {
        guard let scope, context.method == .get, context.options.staleIfError != nil, let current = scope()
        else { return .done }
        store.withLock { $0.prepared(context.id, scope: current) }
        return .done
    }

    /// Keeps an opted-in GET's successful answer.
    public func attemptDidEndSynchronously(_ outcome: AttemptOutcome, context: AttemptContext) {
        guard context.method == .get, context.options.staleIfError != nil else { return }
        let now = context.time.now()
        store.withLock { store in
            let scope = self.scope == nil ? nil : store.ended(context.id)
            guard case .succeeded(let request, let response) = outcome else { return }
            store.store(response, for: request, scope: scope, now: now)
        }
    }

    /// The last good answer to an opted-in GET whose failure the ``Configuration`` names (an
    /// outermost status in ``Configuration/failureStatuses``, a network failure in
    /// ``Configuration/failureNetworkFailures``, or an open circuit), when it is at most the
    /// endpoint's ``EndpointOptions/staleIfError`` old.
    public func staleAnswer(for call: FailedCall) -> StaleAnswer? {
        guard call.request.method == .get, let maximumStaleness = call.options.staleIfError,
            configuration.servesStale(for: call.error)
        else { return nil }
        let current = scope?()
        let now = call.time.now()
        return store.withLock {
            $0.answer(for: call.request, scope: current, now: now, maximumStaleness: maximumStaleness)
        }
    }

    /// How many answers are kept.
    public var count: Int { store.withLock { $0.entries.count } }

    /// The bytes the kept answers count, together (at most ``Configuration/maximumBytes``).
    public var bytes: Int { store.withLock { $0.bytes } }

    /// Forgets every answer.
    public func removeAll() {
        store.withLock { $0.removeAll() }
    }

    /// Forgets the answers kept in `scope` (`nil`: those kept without one): when a person signs out.
    public func removeAll(inScope scope: String?) {
        store.withLock { $0.removeAll(inScope: scope) }
    }
}

extension EndpointOptions {
    /// The oldest an earlier answer to this endpoint may be when ``StaleIfErrorHandler`` gives it
    /// in place of a failure; `nil` (the default) never gives one. Only GETs use it.
    public var staleIfError: Duration? {
        get { self[StaleIfErrorOption.self] }
        set { self[StaleIfErrorOption.self] = newValue.map { max(.zero, $0) } }
    }
}

extension Endpoint {
    /// This endpoint answered, when it fails because the service is down, with its last good
    /// answer up to `maximumStaleness` old (``EndpointOptions/staleIfError``, read by
    /// ``StaleIfErrorHandler``). Only GETs are answered so.
    public func staleIfError(upTo maximumStaleness: Duration) -> Self {
        var copy = self
        copy.options.staleIfError = maximumStaleness
        return copy
    }
}

private enum StaleIfErrorOption: EndpointOptionKey {
    static let defaultValue: Duration? = nil
}
