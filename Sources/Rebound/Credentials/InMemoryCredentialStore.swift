/// A ``CredentialStore`` that keeps the credential in memory only: for tests, command-line tools,
/// and apps that sign in at every launch.
public final class InMemoryCredentialStore: SynchronousCredentialStore {
    private struct State {
        var credential: Credential?
        var lastGeneration = 0
    }

    private let state = Locked(State())

    /// Creates a store, holding `credential` (as generation 1) if one is given.
    public init(_ credential: Credential? = nil) {
        if let credential { Self.store(credential, in: state) }
    }

    public func current() async -> Credential? {
        currentSynchronously()
    }

    public func currentSynchronously() -> Credential? {
        state.withLock { $0.credential }
    }

    @discardableResult
    public func replace(with credential: Credential) async -> Credential {
        Self.store(credential, in: state)
    }

    public func clear() async {
        state.withLock { $0.credential = nil }
    }

    @discardableResult
    private static func store(_ credential: Credential, in state: Locked<State>) -> Credential {
        state.withLock { state in
            var stored = credential
            state.lastGeneration += 1
            stored.generation = state.lastGeneration
            state.credential = stored
            return stored
        }
    }
}
