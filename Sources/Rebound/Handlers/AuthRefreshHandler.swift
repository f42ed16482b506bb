public import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends every request with the signed-in credential, and refreshes the credential when the backend
/// stops accepting it.
///
/// Before each attempt, ``prepare(_:)`` sets `Authorization: Bearer <access token>` from the
/// ``CredentialStore`` (the field and the scheme are configurable). When an attempt fails with
/// 401 (and 403, if ``Configuration/handlesForbidden``), ``recover(from:)`` works out which
/// credential the request was sent with and acts:
///
/// ```
///  401 ─► sent with the store's credential? ── no: the store has a newer one ──────────► retryNow
///              │ yes (or the store is empty)
///              ├─ store empty, no refresh without a credential ──────────────────────► throw noCredential
///              ├─ this handler already recovered this request: the fresh one failed ─► throw refreshRejected
///              ├─ this credential's refresh failed before ───────────────────────────► throw refreshFailed
///              ▼
///  single flight per credential ─► more than maxRefreshes in window? ────────────────► throw tooManyRefreshes
///              │                  refresher.refresh(expired) fails ──────────────────► throw refreshFailed
///              ▼ store.replace(new credential)
///           retryNow (prepare sends the new token)
/// ```
///
/// **Single flight.** Any number of requests that fail with the same credential share one call to
/// the ``CredentialRefresher``: the first starts it, the others wait for it, and all retry with
/// its result. A request that fails after the refresh, with the credential it replaced, retries
/// at once without refreshing. When the refresh fails, every waiter fails with
/// ``RecoveryErrorCode/refreshFailed`` (the refresher's error as the cause), and the handler
/// remembers it: later 401s with the same credential fail at once, until the store holds another
/// one (after a sign-in).
///
/// **Before expiry.** A credential whose ``Credential/expiresAt`` is within
/// ``Configuration/refreshBeforeExpiry`` (60 s by default) of the pipeline's date is refreshed in
/// ``prepare(_:context:)``, before the attempt is sent, through the same single flight: a token
/// known to have expired is never sent. If that refresh fails, a token that is still good is sent
/// all the same; an expired one fails the call with ``RecoveryErrorCode/refreshFailed``. Over a
/// ``SynchronousCredentialStore`` the header is set inline
/// (``prepareSynchronously(_:context:)``), and only an attempt that finds its credential within
/// the skew is handed over to the asynchronous hook, where the refresh may wait.
///
/// **Loops.** A handler is asked once per failed attempt, so an attempt causes at most one
/// refresh. A request that this handler already recovered, and that fails again with the
/// credential it was given, fails with ``RecoveryErrorCode/refreshRejected``: the backend rejects
/// even a fresh credential, and refreshing again cannot help. Across requests, more than
/// ``Configuration/maxRefreshes`` refreshes within ``Configuration/window`` fail with
/// ``RecoveryErrorCode/tooManyRefreshes``.
///
/// **Secrets.** Tokens never appear in this handler's errors, reasons or context: a credential
/// is identified by its ``Credential/generation``.
///
/// ```swift
/// let store = InMemoryCredentialStore()
/// let auth = AuthRefreshHandler(store: store) { expired in
///     try await tokenAPI.refresh(expired)   // sent through a data manager without this handler
/// }
/// let api = try APIDataManager(baseURL: "https://api.example.com", transport: transport,
///                              handlers: [BackendTemporaryErrorHandler(), auth])
/// ```
public final class AuthRefreshHandler: RecoverableErrorHandler {
    /// Which failures the handler refreshes for, how often, and how the credential is sent.
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``handlesForbidden`` | off | 403 means the caller is known but not allowed (RFC 9110, 15.5.4); a new token for the same caller does not change that. Turn it on for backends that answer 403 to an expired token. |
    /// | ``unrefreshableCodes`` | invalidCredentials, accountBlocked, captchaRequired, captchaInvalid | the backend's payload says a refresh cannot help: a wrong password at sign-in, a blocked account, a captcha (``CaptchaRequiredHandler``'s job) |
    /// | ``maxRefreshes`` in ``window`` | 3 in 60 s | an access token lives for minutes or hours, so a healthy client refreshes about once per lifetime, and a second refresh within a minute can still happen (a token revoked right after it was issued); more means the backend keeps rejecting fresh credentials, and refreshing on would only hammer its token endpoint |
    /// | ``headerName``, ``scheme`` | `Authorization`, `Bearer` | RFC 6750, used by OAuth 2 and most JSON APIs |
    /// | ``refreshesWithoutCredential`` | off | a 401 with nobody signed in needs a person to sign in; turn it on when the refresher can get a credential from nothing (an anonymous or device session) |
    /// | ``refreshTimeLimit`` | 30 s | a token endpoint answers in well under a second; a refresh (the store's reads and writes and the refresher) that has not finished in 30 s (Polly's default timeout) has hung, and every 401 meanwhile would wait for it until its call's deadline. The refresh then fails as if the refresher had thrown ``RecoveryErrorCode/deadlineExceeded`` |
    /// | ``refreshBeforeExpiry`` | 60 s | a credential whose ``Credential/expiresAt`` is this close is refreshed before the attempt is sent: longer than an attempt takes on the wire (10 s by default) plus the drift between a phone's clock and the server's, so that a token is not rejected in flight; `nil` refreshes only after a 401 |
    public struct Configuration: Sendable, Hashable {
        /// Whether a 403 is treated like a 401.
        public var handlesForbidden: Bool
        /// Backend codes that mean a refresh cannot help, even with a 401.
        public var unrefreshableCodes: Set<BackendErrorCode>
        /// The most refreshes (calls to the refresher) allowed within ``window``; at least 1.
        public var maxRefreshes: Int
        /// The period ``maxRefreshes`` counts over.
        public var window: Duration
        /// The header field that carries the access token.
        public var headerName: HTTPField.Name
        /// The authentication scheme before the token, such as `Bearer`; empty for the bare token.
        public var scheme: String
        /// Whether a 401 with an empty store calls the refresher (with `nil`) rather than failing
        /// with ``RecoveryErrorCode/noCredential``.
        public var refreshesWithoutCredential: Bool
        /// How long before its ``Credential/expiresAt`` a credential is refreshed, before an attempt
        /// is sent with it; `nil` refreshes only after the backend rejected it.
        public var refreshBeforeExpiry: Duration?
        /// How long a refresh may take, the store's reads and writes and the refresher's call
        /// together; at least 1 ms. A refresh still under way then is left behind (its task
        /// cancelled) and fails with ``RecoveryErrorCode/deadlineExceeded``.
        public var refreshTimeLimit: Duration

        public init(
            handlesForbidden: Bool = false,
            unrefreshableCodes: Set<BackendErrorCode> = [
                .invalidCredentials, .accountBlocked, .captchaRequired, .captchaInvalid,
            ],
            maxRefreshes: Int = 3,
            window: Duration = .seconds(60),
            headerName: HTTPField.Name = .authorization,
            scheme: String = "Bearer",
            refreshesWithoutCredential: Bool = false,
            refreshBeforeExpiry: Duration? = .seconds(60),
            refreshTimeLimit: Duration = .seconds(30)
        ) {
            self.handlesForbidden = handlesForbidden
            self.unrefreshableCodes = unrefreshableCodes
            self.maxRefreshes = max(1, maxRefreshes)
            self.window = window
            self.headerName = headerName
            self.scheme = scheme
            self.refreshesWithoutCredential = refreshesWithoutCredential
            self.refreshBeforeExpiry = refreshBeforeExpiry.map { max(.zero, $0) }
            self.refreshTimeLimit = max(.milliseconds(1), refreshTimeLimit)
        }

        /// The defaults of the table above.
        public static let `default` = Configuration()
    }

    public let configuration: Configuration
    /// Where the credential is kept.
    public let store: any CredentialStore
    /// Gets a new credential.
    public let refresher: any CredentialRefresher
    /// The store's read without suspending, when it has one: the credential is then set inline.
    /// A closure, so that checking for it and calling it copies no existential.
    private let currentSynchronously: (@Sendable () -> Credential?)?

    /// How one refresh (or the decision not to make one) ended, shared by all its waiters.
    private enum Outcome: Sendable {
        /// The store holds a new credential: retry.
        case refreshed
        /// The store already held another credential when the refresh was about to start: retry.
        case superseded
        /// This credential's refresh failed before; its error.
        case failedBefore(any Error)
        /// The refresher failed; its error.
        case failed(any Error)
        /// The refresh would be one too many within the window.
        case tooMany
    }

    private struct State {
        /// When each refresh within the window started.
        var refreshStarts: [Duration] = []
        /// The credential (by generation; `nil` for none) whose refresh failed, and the error.
        var failedRefresh: (generation: Int?, error: any Error)?
        /// The header of the access token requests were last prepared with, kept so that
        /// ``prepare(_:)`` builds and validates it once per credential rather than on every
        /// attempt.
        var authorization: Authorization?
    }

    /// The header field that carries one access token, as ``prepare(_:)`` sets it.
    private final class Authorization: Sendable, CustomReflectable {
        /// The token it was made from: the cache key. A different token, whatever its generation,
        /// gets a new header.
        let accessToken: String
        /// `Bearer <token>`.
        let value: String
        /// The fields that `headerFields[headerName] = value` sets.
        let fields: [HTTPField]
        /// Header fields holding just ``fields``: what a request without header fields ends up with.
        let only: HTTPFields

        init(accessToken: String, value: String, name: HTTPField.Name) {
            self.accessToken = accessToken
            self.value = value
            // Marked secret ("never index", HTTP's flag for sensitive values): transports that
            // honour the flag keep it out of header compression tables, and CurlTransport keeps
            // it from following a redirect to another host.
            var field = HTTPField(name: name, value: value)
            field.indexingStrategy = .disallow
            let only = HTTPFields([field])
            self.only = only
            fields = Array(only)
        }

        /// Nothing of the token: `dump` of the handler must not print it.
        var customMirror: Mirror {
            Mirror(self, children: ["accessToken": ErrorContext.Value.redactionMarker], displayStyle: .class)
        }
    }

    /// Refreshes in flight, by the generation of the credential they replace (`nil`: none).
    private let flights = SingleFlight<Int?, Outcome>()
    private let state = Locked(State())

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - store: Where the credential is kept; the app replaces it on sign-in.
    ///   - refresher: Gets a new credential when the backend rejects the current one.
    ///   - configuration: Which failures to handle, how often to refresh, how to send the token.
    public init(
        store: any CredentialStore,
        refresher: any CredentialRefresher,
        configuration: Configuration = Configuration()
    ) {
        self.store = store
        if let synchronous = store as? any SynchronousCredentialStore {
            currentSynchronously = { synchronous.currentSynchronously() }
        } else {
            currentSynchronously = nil
        }
        self.refresher = refresher
        self.configuration = configuration
    }

    /// Creates the handler with a closure that gets a new credential.
    ///
    /// - Parameters:
    ///   - store: Where the credential is kept; the app replaces it on sign-in.
    ///   - configuration: Which failures to handle, how often to refresh, how to send the token.
    ///   - refresh: Gets a new credential in place of the expired one (see ``CredentialRefresher``).
    public convenience init(
        store: any CredentialStore,
        configuration: Configuration = Configuration(),
        refresh: @escaping @Sendable (_ expired: Credential?) async throws -> Credential
    ) {
        self.init(store: store, refresher: ClosureCredentialRefresher(body: refresh), configuration: configuration)
    }

    /// Only `prepare`: the outcome of an attempt tells this handler nothing `recover` does not. Over
    /// a ``SynchronousCredentialStore`` it starts inline, and hands over to the asynchronous hook
    /// only to refresh before expiry.
    public var hooks: HandlerHooks { currentSynchronously == nil ? .prepare : .prepareSynchronously }

    /// Sets the credential's header field, as ``prepare(_:)`` does; first, a credential that
    /// expires within ``Configuration/refreshBeforeExpiry`` is refreshed (one refresh shared by
    /// every caller, the recoveries from a 401 included).
    ///
    /// When that refresh fails, a credential that has not expired yet is sent all the same (it is
    /// still good, and a 401 would start the usual recovery); one that has expired is not.
    ///
    /// - Throws: ``RecoveryErrorCode/refreshFailed`` or ``RecoveryErrorCode/tooManyRefreshes``
    ///   when the credential has expired and could not be refreshed.
    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
        var current = if let currentSynchronously { currentSynchronously() } else { await store.current() }
        if let credential = current, isDue(credential, time: context.time) {
            current = try await refreshAhead(credential, time: context.time)
        }
        authorize(&request, with: current)
    }

    /// Sets the credential's header field, replacing any the request had; with no credential in
    /// the store, leaves the request alone.
    public nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws {
        authorize(&request, with: await store.current())
    }

    /// Sets the credential's header field from a ``SynchronousCredentialStore``, as
    /// ``prepare(_:)`` does; a credential due for a refresh before expiry (or a store that is not
    /// synchronous) hands the attempt over to ``prepare(_:context:)``.
    public func prepareSynchronously(
        _ request: inout HTTPRequest, context: AttemptContext
    ) -> SynchronousPreparation {
        guard let currentSynchronously else { return .continueAsynchronously }
        let current = currentSynchronously()
        if let current, isDue(current, time: context.time) { return .continueAsynchronously }
        authorize(&request, with: current)
        return .done
    }

    /// Whether `credential` expires within ``Configuration/refreshBeforeExpiry`` of the date.
    private func isDue(_ credential: Credential, time: TimeSource) -> Bool {
        guard let skew = configuration.refreshBeforeExpiry, let expiresAt = credential.expiresAt else { return false }
        return time.date() >= expiresAt.addingTimeInterval(-skew.seconds)
    }

    /// Sets the header field of `credential`, or leaves the request alone without one.
    private func authorize(_ request: inout HTTPRequest, with current: Credential?) {
        guard let current else {
            // Nobody is signed in: keep no token around.
            state.withLock { $0.authorization = nil }
            return
        }
        let header = state.withLock { state in
            Self.forgetFailedRefresh(in: &state, unlessOf: current)
            return authorization(for: current, in: &state)
        }
        // The same fields as `headerFields[headerName] = value`, without building them again.
        if request.headerFields.isEmpty {
            request.headerFields = header.only
        } else {
            request.headerFields[fields: configuration.headerName] = header.fields
        }
    }

    public func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
        guard isAuthenticationFailure(failure) else { return .cannotHandle }
        let current = await store.current()
        forgetFailedRefresh(unlessOf: current)
        if let current, failure.request.headerFields[configuration.headerName] != headerValue(for: current) {
            // A newer credential arrived (another request's refresh, a sign-in) after this request left.
            return .retryNow
        }
        guard current != nil || configuration.refreshesWithoutCredential else {
            throw RecoveryError(
                .noCredential,
                cause: failure.error,
                reason: "The backend asked for a credential and nobody is signed in."
            )
        }
        if failure.recoveries(by: name) > 0 {
            throw RecoveryError(
                .refreshRejected,
                cause: failure.error,
                reason: "The backend rejected the credential this request was given after its earlier "
                    + "\(failure.status?.code ?? 401); refreshing again cannot help."
            )
        }
        let generation = current?.generation
        if let earlier = failedRefresh(of: generation) {
            throw refreshFailed(earlier, generation: generation, before: true)
        }
        let time = failure.context.time
        let outcome = try await flights.run(generation) { [self] in
            await refreshWithinLimit(generation, at: time)
        }
        switch outcome {
        case .refreshed, .superseded:
            return .retryNow
        case .failedBefore(let error):
            throw refreshFailed(error, generation: generation, before: true)
        case .failed(let error):
            throw refreshFailed(error, generation: generation, before: false)
        case .tooMany:
            throw RecoveryError(
                .tooManyRefreshes,
                cause: failure.error,
                reason: "The credential was refreshed \(configuration.maxRefreshes) times within "
                    + "\(configuration.window); refreshing once more points at a loop."
            )
        }
    }

    /// Whether the failure is one a new credential may cure: its status, and no backend code that
    /// says otherwise.
    func isAuthenticationFailure(_ failure: FailedAttempt) -> Bool {
        guard let status = failure.status?.code,
            status == 401 || (status == 403 && configuration.handlesForbidden)
        else { return false }
        let backendCodes = failure.error.causalChain.compactMap { ($0 as? BackendError)?.code }
        return !backendCodes.contains { configuration.unrefreshableCodes.contains($0) }
    }

    /// The credential to send in place of `credential`, which expires soon: the result of the
    /// refresh (shared with any under way for it), or `credential` itself while it is still good.
    private func refreshAhead(_ credential: Credential, time: TimeSource) async throws -> Credential? {
        let generation = credential.generation
        let outcome: Outcome
        if let earlier = failedRefresh(of: generation) {
            outcome = .failedBefore(earlier)
        } else {
            outcome = try await flights.run(generation) { [self] in
                await refreshWithinLimit(generation, at: time)
            }
        }
        switch outcome {
        case .refreshed, .superseded:
            return await store.current()
        case .failedBefore(let error):
            guard credential.isExpired(at: time.date()) else { return credential }
            throw refreshFailed(error, generation: generation, before: true)
        case .failed(let error):
            guard credential.isExpired(at: time.date()) else { return credential }
            throw refreshFailed(error, generation: generation, before: false)
        case .tooMany:
            guard credential.isExpired(at: time.date()) else { return credential }
            throw RecoveryError(
                .tooManyRefreshes,
                reason: "The credential expired and was already refreshed \(configuration.maxRefreshes) times within "
                    + "\(configuration.window); refreshing once more points at a loop.")
        }
    }

    /// How many recoveries are waiting for the refresh of the credential of `generation` (`nil`:
    /// none), for tests and diagnostics.
    package func recoveriesWaiting(forRefreshOf generation: Int?) -> Int {
        flights.waiterCount(for: generation)
    }

    // MARK: - The refresh

    /// The body of a flight: ``refreshIfStillCurrent(_:at:)`` within ``Configuration/refreshTimeLimit``.
    /// Past it the refresh is left behind (its task cancelled) and fails with
    /// ``RecoveryErrorCode/deadlineExceeded``, remembered for the credential as any failed refresh
    /// is: a refresher that never answers, or a store that hangs, cannot hold the flight for good.
    private func refreshWithinLimit(_ generation: Int?, at time: TimeSource) async -> Outcome {
        let limit = configuration.refreshTimeLimit
        let outcome = try? await TimeLimit.run(limit: limit, on: time) {
            await self.refreshIfStillCurrent(generation, at: time)
        }
        if let outcome { return outcome }
        // The new credential may have been stored just as the limit passed.
        if let current = currentSynchronously?(), current.generation != generation { return .superseded }
        let error = RecoveryError(.deadlineExceeded, reason: "The refresh did not finish within \(limit).")
        state.withLock { $0.failedRefresh = (generation, error) }
        return .failed(error)
    }

    /// Refreshes the credential of `generation` unless it is no longer the store's, failed
    /// before, or would be one refresh too many.
    ///
    /// It looks at the store again, because a caller may have read it just before the previous
    /// flight replaced the credential: that caller must retry, not refresh a second time.
    private func refreshIfStillCurrent(_ generation: Int?, at time: TimeSource) async -> Outcome {
        let current = await store.current()
        guard current?.generation == generation else { return .superseded }
        let now = time.now()
        let refusal = state.withLock { state -> Outcome? in
            if let failed = state.failedRefresh, failed.generation == generation {
                return .failedBefore(failed.error)
            }
            state.refreshStarts.removeAll { now - $0 >= configuration.window }
            guard state.refreshStarts.count < configuration.maxRefreshes else { return .tooMany }
            state.refreshStarts.append(now)
            return nil
        }
        if let refusal { return refusal }
        do {
            let fresh = try await refresher.refresh(current)
            await store.replace(with: fresh)
            return .refreshed
        } catch {
            // Left behind at the time limit (cancelled): the limit's failure is the one remembered.
            guard !Task.isCancelled else { return .failed(error) }
            // Set before the flight ends, so that a request arriving after it fails at once.
            state.withLock { $0.failedRefresh = (generation, error) }
            return .failed(error)
        }
    }

    private func failedRefresh(of generation: Int?) -> (any Error)? {
        state.withLock { state in
            guard let failed = state.failedRefresh, failed.generation == generation else { return nil }
            return failed.error
        }
    }

    /// Forgets a failed refresh once the store holds another credential: a sign-in starts afresh.
    private func forgetFailedRefresh(unlessOf current: Credential?) {
        guard let current else { return }
        state.withLock { state in Self.forgetFailedRefresh(in: &state, unlessOf: current) }
    }

    private static func forgetFailedRefresh(in state: inout State, unlessOf current: Credential) {
        if let failed = state.failedRefresh, failed.generation != current.generation {
            state.failedRefresh = nil
        }
    }

    private func refreshFailed(_ error: any Error, generation: Int?, before: Bool) -> RecoveryError {
        let credential = generation.map { "the credential of generation \($0)" } ?? "a credential"
        return RecoveryError(
            .refreshFailed,
            cause: error,
            reason: before
                ? "Refreshing \(credential) failed before; it is not retried until the next sign-in."
                : "Refreshing \(credential) failed."
        )
    }

    /// `Bearer <token>`, or the bare token when the scheme is empty.
    private func headerValue(for credential: Credential) -> String {
        state.withLock { state in authorization(for: credential, in: &state).value }
    }

    /// The header of `credential`'s access token: the cached one if it was made from the same
    /// token, else a new one, which replaces it in the cache.
    private func authorization(for credential: Credential, in state: inout State) -> Authorization {
        if let cached = state.authorization, cached.accessToken == credential.accessToken { return cached }
        let value =
            configuration.scheme.isEmpty ? credential.accessToken : "\(configuration.scheme) \(credential.accessToken)"
        let made = Authorization(accessToken: credential.accessToken, value: value, name: configuration.headerName)
        state.authorization = made
        return made
    }
}
