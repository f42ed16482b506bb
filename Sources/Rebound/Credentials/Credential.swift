#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What proves who the caller is: an access token, and what it takes to get a new one.
///
/// Tokens are secrets. ``description``, ``debugDescription`` and the mirror (which `dump` and
/// test-failure messages read) show the generation and the expiry only, never a token: read
/// ``accessToken`` and ``refreshToken`` only where they are sent.
///
/// A ``CredentialStore`` numbers the credentials it holds with increasing ``generation``s, so that
/// two credentials, and the requests sent with them, can be told apart and ordered without
/// comparing secrets.
///
/// ```swift
/// let stored = await store.replace(with: Credential(accessToken: access, refreshToken: refresh))
/// print(stored)   // Credential(generation: 1, accessToken: <redacted>, refreshToken: <redacted>, expiresAt: none)
/// ```
public struct Credential: Hashable, Sendable {
    /// The token sent with every request, such as a bearer token. A secret.
    public var accessToken: String
    /// The token that buys a new access token from the backend's refresh endpoint, if the backend
    /// issues one. A secret.
    public var refreshToken: String?
    /// When the access token stops being accepted, if the backend said.
    public var expiresAt: Date?
    /// The credential's number in its store: greater for a later credential.
    ///
    /// The store sets it in ``CredentialStore/replace(with:)``; a credential that was never
    /// stored has 0.
    public var generation: Int

    /// Creates a credential.
    ///
    /// - Parameters:
    ///   - accessToken: The token sent with every request.
    ///   - refreshToken: The token that buys a new access token, if there is one.
    ///   - expiresAt: When the access token expires, if known.
    ///   - generation: Leave it at 0 (not stored yet): the store numbers what it stores.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil, generation: Int = 0) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.generation = generation
    }

    /// Whether the access token has expired at `date`; `false` when its expiry is unknown.
    public func isExpired(at date: Date) -> Bool {
        expiresAt.map { $0 <= date } ?? false
    }
}

extension Credential: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Credential(generation: 3, accessToken: <redacted>, refreshToken: <redacted>, expiresAt: …)`.
    public var description: String {
        let marker = ErrorContext.Value.redactionMarker
        return "Credential(generation: \(generation), accessToken: \(marker), "
            + "refreshToken: \(refreshToken == nil ? "none" : marker), "
            + "expiresAt: \(expiresAt.map { "\($0)" } ?? "none"))"
    }

    /// The same as ``description``: a debugger must not show the tokens either.
    public var debugDescription: String { description }

    /// The fields with the tokens redacted, for `dump` and anything else that reflects.
    public var customMirror: Mirror {
        let marker = ErrorContext.Value.redactionMarker
        return Mirror(
            self,
            children: [
                "generation": generation,
                "accessToken": marker,
                "refreshToken": refreshToken == nil ? "none" : marker,
                "expiresAt": expiresAt.map { "\($0)" } ?? "none",
            ],
            displayStyle: .struct
        )
    }
}
