public import HTTPTypes

/// A plugin that may recover from a failed attempt, so that the request can be sent again.
///
/// The ``APIDataManager`` asks its handlers in order. Each answers
/// ``RecoveryDecision/cannotHandle`` (not mine: ask the next one) or ``RecoveryDecision/didHandle(_:)``
/// (recovered: send again, perhaps after a delay or with an adjusted request). The first
/// `didHandle` ends the asking; the pipeline, not the handler, waits and sends again.
///
/// ```
///          attempt fails
///                │
///                ▼
///  ┌─────────────────────────────┐ cannotHandle ┌──────────────────┐ cannotHandle ┌─────────────────────────┐
///  │ BackendTemporaryErrorHandler│─────────────►│ AuthRefreshHandler│─────────────►│ CaptchaRequiredHandler  │──► none: the failure is
///  └─────────────────────────────┘              └──────────────────┘              └─────────────────────────┘    wrapped into the caller's
///                │ didHandle(wait 0.4 s)                 │ didHandle(new token)            │ didHandle            API error and thrown
///                └───────────────────────────────────────┴─────────────────────────────────┘
///                                              ▼
///                             wait (bounded by the deadline), send again
/// ```
///
/// A handler whose own recovery fails (the refresh is rejected, the captcha is cancelled) throws;
/// that ends the request, and the thrown error becomes part of the final error's chain.
///
/// ## Hooks
///
/// Only ``recover(from:)`` is required. Two optional hooks see every attempt, with an
/// ``AttemptContext`` (the attempt's id and number, the deadline and time left, the endpoint's
/// options and the pipeline's time source):
///
/// - ``prepare(_:context:)`` adjusts the request before it is sent (to add a credential, say),
///   or refuses the attempt by throwing (a breaker that is open).
/// - ``attemptDidEnd(_:context:)`` hears how the attempt ended (``AttemptOutcome``): exactly once
///   for every attempt this handler prepared, whatever happened, so that what `prepare` took
///   (a permit) is always given back. A failure's outcome comes after the handlers decided about
///   it, with the record of who did.
///
/// ```
///  prepare (every handler, in order) ─► send ─► judge ─► recover (handlers in order, unless
///      │ one throws: refused                                  it was the last attempt)
///      ▼                                                      ▼
///  attemptDidEnd(.refused)              attemptDidEnd(.succeeded / .failed / .cancelled)
/// ```
///
/// Every hook is called the same way, for built-in handlers and an app's alike, whatever the
/// clock: it starts on the calling thread, and a hook that returns without suspending is simply
/// done. One that suspends is raced against the call's deadline and left behind (cancelled) when
/// the deadline passes first: a `prepare` then ends the call with
/// ``RecoveryErrorCode/deadlineExceeded``, a `recover` too, and after `attemptDidEnd` the call
/// goes on. A handler that never uses a hook says so with ``hooks``, and the pipeline does not
/// call it at all.
///
/// ## Synchronous hooks
///
/// Starting a hook in a task of its own, so that it can be left behind, costs more than a whole
/// call otherwise does when the hook's work is a few lines. A handler whose hook never suspends
/// (it reads a lock, counts, sets a header field) implements ``attemptDidEndSynchronously(_:context:)``
/// instead of ``attemptDidEnd(_:context:)`` and says so with
/// ``HandlerHooks/attemptDidEndSynchronously``: the pipeline then calls it inline.
///
/// Preparing often needs no suspension but sometimes must wait: a credential is fresh until it
/// is about to expire, a rate limiter has tokens until it has none, a bulkhead has a permit free
/// until it is full. Such a handler implements ``prepareSynchronously(_:context:)`` and says so
/// with ``HandlerHooks/prepareSynchronously``: the pipeline calls it inline first, and it either
/// prepares the request and answers ``SynchronousPreparation/done``, or answers
/// ``SynchronousPreparation/continueAsynchronously``, and the pipeline then calls
/// ``prepare(_:context:)`` as the hook that may suspend, raced against the deadline:
///
/// ```
///  prepareSynchronously ── .done ──────────────────────────────────────► next handler
///        │ .continueAsynchronously          │ throws: refused
///        ▼                                  ▼
///  prepare (started on the calling thread; raced against the deadline if it suspends)
/// ```
///
/// The built-in handlers do so; any handler may. A synchronous hook must not block (no I/O, no
/// waiting on other threads): nothing can leave it behind.
///
/// ## Answering a failed call
///
/// When a call fails for good (no handler recovered, its attempts or its deadline are spent), the
/// pipeline asks the handlers that list ``HandlerHooks/staleAnswer``, in order, for an earlier
/// answer to give in its place: ``staleAnswer(for:)``. The first that has one wins: the call
/// returns its value, decoded as a fresh answer would be, and ``APIResponse/staleness`` says how
/// old it is and which failure it stands in for. ``StaleIfErrorHandler`` keeps such answers. A
/// cancelled call is never answered so.
///
/// ```
///  the call fails ─► staleAnswer (handlers with the hook, in order) ─► an answer that decodes ─► value (stale)
///                                    │ none, or it does not decode
///                                    ▼
///                          throw APIError(endpoint.errorCode, cause: failure)
/// ```
///
/// The hooks run on the caller's executor (`nonisolated(nonsending)`): the caller is
/// ``APIDataManager``, which never runs on its own caller's actor, so they start on the global
/// executor (or on the task's preferred executor, such as the transport's loop under
/// `withTaskExecutorPreference`). A hook with blocking work should hand it to a thread of its
/// own behind a continuation.
public protocol RecoverableErrorHandler: Sendable {
    /// Decides whether this handler can recover from a failed attempt.
    ///
    /// - Parameter failure: The failure, its chain, the request, the response if there was one,
    ///   and the attempt's context (number, time left, options, time source).
    /// - Returns: ``RecoveryDecision/cannotHandle`` or ``RecoveryDecision/didHandle(_:)``.
    /// - Throws: The handler's own failure to recover; it ends the request.
    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision

    /// Adjusts a request before it is sent; the default calls ``prepare(_:)``.
    ///
    /// Preparing changes the request for good: what a handler adds once (an idempotency key)
    /// stays on every later attempt, and what it sets each time (a credential) is replaced.
    ///
    /// - Parameters:
    ///   - request: The request, as the handlers before this one left it.
    ///   - context: The attempt.
    /// - Throws: A failure that refuses the attempt: it is not sent, and the error ends the call
    ///   as its cause (a ``LayeredError`` as it is, any other error under
    ///   ``RecoveryErrorCode/handlerFailed``).
    nonisolated(nonsending) func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws

    /// Hears how an attempt this handler prepared ended; the default calls
    /// ``attemptDidSucceed(_:)`` for a success.
    ///
    /// - Parameters:
    ///   - outcome: How it ended.
    ///   - context: The attempt.
    nonisolated(nonsending) func attemptDidEnd(_ outcome: AttemptOutcome, context: AttemptContext) async

    /// Adjusts a request before it is sent, without suspending, when it can; called first when
    /// ``hooks`` holds ``HandlerHooks/prepareSynchronously``. The default hands over at once.
    ///
    /// A handler whose preparing must wait this time (for a refresh, a token, a permit) answers
    /// ``SynchronousPreparation/continueAsynchronously``, and the pipeline calls
    /// ``prepare(_:context:)`` with the request as this hook left it. Take nothing here that
    /// `prepare` would take again: the outcome hook hears of the attempt once, however it was
    /// prepared.
    ///
    /// - Parameters:
    ///   - request: The request, as the handlers before this one left it.
    ///   - context: The attempt.
    /// - Returns: ``SynchronousPreparation/done`` when the request is ready, or
    ///   ``SynchronousPreparation/continueAsynchronously`` to have ``prepare(_:context:)`` called.
    /// - Throws: As ``prepare(_:context:)``: a failure that refuses the attempt (the asynchronous
    ///   hook is not called then).
    func prepareSynchronously(_ request: inout HTTPRequest, context: AttemptContext) throws -> SynchronousPreparation

    /// Hears how an attempt ended, without suspending; called instead of
    /// ``attemptDidEnd(_:context:)`` when ``hooks`` holds ``HandlerHooks/attemptDidEndSynchronously``.
    /// The default does nothing.
    func attemptDidEndSynchronously(_ outcome: AttemptOutcome, context: AttemptContext)

    /// An earlier answer to give in place of a call's failure, without suspending; called when
    /// the call failed for good and ``hooks`` holds ``HandlerHooks/staleAnswer``. The default has
    /// none.
    ///
    /// It must not block: it runs after the call's deadline may have passed.
    ///
    /// - Parameter call: The failed call: its request, options, failure and attempts.
    /// - Returns: The answer and its age, or `nil` to leave the failure as it is (or to the next
    ///   handler with the hook).
    func staleAnswer(for call: FailedCall) -> StaleAnswer?

    /// The short form of ``prepare(_:context:)``, for handlers that need no context; the default
    /// leaves the request unchanged.
    nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws

    /// The short form of ``attemptDidEnd(_:context:)`` for successes; the default does nothing.
    nonisolated(nonsending) func attemptDidSucceed(_ request: HTTPRequest) async

    /// Which optional hooks the handler uses; the default is both. The pipeline does not call a
    /// hook left out: a call through an existential on every attempt costs time even when it
    /// does nothing.
    var hooks: HandlerHooks { get }

    /// A name for logs, metrics and the attempt history; the default is the type's name.
    var name: String { get }
}

/// The optional hooks of a ``RecoverableErrorHandler`` that the pipeline calls.
public struct HandlerHooks: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// ``RecoverableErrorHandler/prepare(_:context:)``.
    public static let prepare = HandlerHooks(rawValue: 1 << 0)
    /// ``RecoverableErrorHandler/attemptDidEnd(_:context:)``.
    public static let attemptDidEnd = HandlerHooks(rawValue: 1 << 1)
    /// ``RecoverableErrorHandler/prepareSynchronously(_:context:)``, called inline first;
    /// `prepare(_:context:)` is called only when it answers
    /// ``SynchronousPreparation/continueAsynchronously``.
    public static let prepareSynchronously = HandlerHooks(rawValue: 1 << 2)
    /// ``RecoverableErrorHandler/attemptDidEndSynchronously(_:context:)``, called inline in place
    /// of `attemptDidEnd(_:context:)`.
    public static let attemptDidEndSynchronously = HandlerHooks(rawValue: 1 << 3)
    /// ``RecoverableErrorHandler/staleAnswer(for:)``, asked when a call failed for good.
    public static let staleAnswer = HandlerHooks(rawValue: 1 << 4)
    /// Both asynchronous hooks: the default.
    public static let all: HandlerHooks = [.prepare, .attemptDidEnd]
}

extension RecoverableErrorHandler {
    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
        try await prepare(&request)
    }

    public nonisolated(nonsending) func attemptDidEnd(_ outcome: AttemptOutcome, context: AttemptContext) async {
        if case .succeeded(let request, _) = outcome { await attemptDidSucceed(request) }
    }

    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws {}

    public func prepareSynchronously(
        _ request: inout HTTPRequest, context: AttemptContext
    ) throws -> SynchronousPreparation {
        .continueAsynchronously
    }

    public func attemptDidEndSynchronously(_ outcome: AttemptOutcome, context: AttemptContext) {}

    public func staleAnswer(for call: FailedCall) -> StaleAnswer? { nil }

    public nonisolated(nonsending) func attemptDidSucceed(_ request: HTTPRequest) async {}

    public var hooks: HandlerHooks { .all }

    public var name: String { String(describing: Self.self) }
}

/// What ``RecoverableErrorHandler/prepareSynchronously(_:context:)`` did: prepared the request, or
/// left it to the asynchronous ``RecoverableErrorHandler/prepare(_:context:)``.
public enum SynchronousPreparation: Sendable, Hashable {
    /// The request is ready as far as this handler is concerned: `prepare(_:context:)` is not
    /// called.
    case done
    /// This attempt needs a hook that may suspend (a refresh, a wait for a token or a permit):
    /// the pipeline calls `prepare(_:context:)` next, bounded by the call's deadline.
    case continueAsynchronously
}
