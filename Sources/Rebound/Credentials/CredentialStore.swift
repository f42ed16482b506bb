/// Where the app keeps the signed-in credential: in memory, in the keychain, in a file.
///
/// ``AuthRefreshHandler`` reads the current credential before every attempt and replaces it after
/// a refresh; the app replaces it on sign-in and clears it on sign-out. Every replacement gets a
/// ``Credential/generation`` greater than any the store gave before, even after a ``clear()``, so
/// that a request sent with an older credential can be recognised as such.
///
/// Implementations must be safe to call from many tasks at once.
public protocol CredentialStore: Sendable {
    /// The credential to send requests with, or `nil` when nobody is signed in.
    ///
    /// Like any nonisolated `async` function it runs off the caller's actor, so a store may read
    /// the keychain or a file here without blocking an app's main actor. ``AuthRefreshHandler``
    /// reads it before every attempt, from the pipeline, which already runs off any actor: a
    /// store that answers from memory returns there without suspending.
    func current() async -> Credential?

    /// Makes `credential` the current one, numbered with a generation greater than any before.
    ///
    /// - Parameter credential: The new credential; its own generation is ignored.
    /// - Returns: The credential as stored, with its generation set.
    @discardableResult
    func replace(with credential: Credential) async -> Credential

    /// Forgets the current credential (a sign-out); the generations go on increasing from where
    /// they were.
    func clear() async
}

/// A credential store that can answer without suspending, because it keeps the credential in
/// memory.
///
/// ``AuthRefreshHandler`` then sets the credential of every attempt inline
/// (``RecoverableErrorHandler/prepareSynchronously(_:context:)``) rather than in a hook task of
/// its own, which costs more than the rest of a call; only a refresh before expiry takes the
/// asynchronous hook. ``InMemoryCredentialStore`` is one; an app's
/// store that caches its credential in memory can be one too.
public protocol SynchronousCredentialStore: CredentialStore {
    /// The credential to send requests with, or `nil` when nobody is signed in, read without
    /// suspending and without blocking (no I/O).
    func currentSynchronously() -> Credential?
}
