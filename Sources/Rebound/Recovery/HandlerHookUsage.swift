import HTTPTypes

/// Which of its optional hooks a built-in handler uses, so that the ``APIDataManager`` can skip
/// the calls that would do nothing, and make the others without an async call.
///
/// A hook left at its default does nothing, but calling it is still an async call through an
/// existential, on every attempt. Only handlers that Rebound ships conform, and only where the
/// answers are fixed for the handler's lifetime; the pipeline calls every hook of any other
/// handler as the protocol says.
protocol HandlerHookUsage: RecoverableErrorHandler {
    /// Whether ``RecoverableErrorHandler/prepare(_:)`` may change a request; `false` only when
    /// it never does.
    var usesPrepare: Bool { get }
    /// Whether ``RecoverableErrorHandler/prepare(_:)`` never suspends; the pipeline then calls
    /// ``prepareSynchronously(_:)`` instead. A handler may answer from its current setup (the
    /// auth handler does when its store is an ``InMemoryCredentialStore``).
    var preparesSynchronously: Bool { get }
    /// Does what ``RecoverableErrorHandler/prepare(_:)`` does, without suspending; called only
    /// when ``preparesSynchronously`` is `true`.
    func prepareSynchronously(_ request: inout HTTPRequest) throws
    /// Whether ``RecoverableErrorHandler/attemptDidSucceed(_:)`` does anything; `false` only when
    /// it does nothing.
    var usesAttemptDidSucceed: Bool { get }
    /// Does what ``RecoverableErrorHandler/attemptDidSucceed(_:)`` does, which never suspends;
    /// the pipeline calls this instead when ``usesAttemptDidSucceed`` is `true`.
    func attemptDidSucceedSynchronously(_ request: HTTPRequest)
}

extension HandlerHookUsage {
    var preparesSynchronously: Bool { false }
    func prepareSynchronously(_ request: inout HTTPRequest) throws {}
    func attemptDidSucceedSynchronously(_ request: HTTPRequest) {}
}
