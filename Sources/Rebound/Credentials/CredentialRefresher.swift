/// Gets a new credential when the backend stops accepting the current one.
///
/// The app implements it, usually by calling the backend's refresh endpoint with the expired
/// credential's ``Credential/refreshToken``. ``AuthRefreshHandler`` calls it at most once for any
/// number of requests that fail with the same credential, so it need not guard against
/// concurrent calls itself.
///
/// ```swift
/// struct TokenRefresher: CredentialRefresher {
///     let api: APIDataManager
///     func refresh(_ expired: Credential?) async throws -> Credential {
///         guard let refreshToken = expired?.refreshToken else { throw SignInRequired() }
///         let tokens = try await api.send(Endpoint<Tokens, APIErrorCode>(
///             .post, "/v1/token", json: ["refresh_token": refreshToken], errorCode: .getTokenFailed))
///         return Credential(accessToken: tokens.access, refreshToken: tokens.refresh)
///     }
/// }
/// ```
///
/// Send the refresh request through a data manager *without* the ``AuthRefreshHandler``: a 401
/// from the refresh endpoint must end the refresh, not start another one.
public protocol CredentialRefresher: Sendable {
    /// Gets a new credential in place of `expired`.
    ///
    /// - Parameter expired: The credential the backend rejected, or `nil` when there is none and
    ///   the handler is configured to refresh without one
    ///   (``AuthRefreshHandler/Configuration/refreshesWithoutCredential``).
    /// - Returns: The new credential; the store numbers it, so its generation does not matter.
    /// - Throws: Why refreshing failed. Every request waiting for this refresh then fails with
    ///   ``RecoveryErrorCode/refreshFailed``, with this error as the cause.
    func refresh(_ expired: Credential?) async throws -> Credential
}

/// A ``CredentialRefresher`` made of a closure.
struct ClosureCredentialRefresher: CredentialRefresher {
    let body: @Sendable (Credential?) async throws -> Credential

    func refresh(_ expired: Credential?) async throws -> Credential {
        try await body(expired)
    }
}
