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
/// Only ``recover(from:)`` is required. ``prepare(_:)`` lets a handler adjust every attempt
/// before it is sent (to add a credential, say), and ``attemptDidSucceed(_:)`` lets it learn of
/// successes (to refill a retry budget); both do nothing by default.
public protocol RecoverableErrorHandler: Sendable {
    /// Decides whether this handler can recover from a failed attempt.
    ///
    /// - Parameter failure: The failure, its chain, the request, the response if there was one,
    ///   the attempt number and the time left.
    /// - Returns: ``RecoveryDecision/cannotHandle`` or ``RecoveryDecision/didHandle(_:)``.
    /// - Throws: The handler's own failure to recover; it ends the request.
    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision

    /// Adjusts a request before each attempt; the default leaves it unchanged.
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`), like ``attemptDidSucceed(_:)``:
    /// the data manager calls both on every attempt, and a hop to the global executor on the way
    /// in and out would cost more than the work. The caller is ``APIDataManager``, which never
    /// runs on its own caller's actor, so both start on the global executor (or on the task's
    /// preferred executor, such as the transport's loop under `withTaskExecutorPreference`).
    /// Swift gives a plain `async` witness declared with the conformance the requirement's
    /// `nonisolated(nonsending)`. `@concurrent` does not take a hook off a task's preferred
    /// executor; a hook with blocking work should hand it to a thread of its own behind a
    /// continuation.
    ///
    /// On a real clock the call's deadline bounds both hooks: each runs in a task of its own,
    /// started on the calling thread, and one still suspended at the deadline is cancelled and
    /// left behind (a `prepare` ends the call with ``RecoveryErrorCode/deadlineExceeded``; after
    /// `attemptDidSucceed` the call returns its response). A hook that returns without suspending
    /// is never cut short.
    ///
    /// - Throws: A failure that ends the request before it is sent.
    nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws

    /// Learns that an attempt succeeded; the default does nothing.
    ///
    /// Bounded by the call's deadline like ``prepare(_:)``: one still suspended at the deadline is
    /// cancelled and left behind, and the call returns its response.
    nonisolated(nonsending) func attemptDidSucceed(_ request: HTTPRequest) async

    /// A name for logs, metrics and the attempt history; the default is the type's name.
    var name: String { get }
}

extension RecoverableErrorHandler {
    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws {}

    public nonisolated(nonsending) func attemptDidSucceed(_ request: HTTPRequest) async {}

    public var name: String { String(describing: Self.self) }
}
