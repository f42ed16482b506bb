/// The `code` of an error the mock backend sends, with the status it comes with.
///
/// The strings are the ones Rebound's `JSONBackendErrorParser` maps by default, so a client built on
/// Rebound understands every error this server sends without configuration. They never change.
public enum MockErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No usable access token: the `Authorization` header is missing, malformed or unknown (401).
    case unauthorized = "unauthorized"
    /// The refresh token is unknown or was used already (401).
    case invalidToken = "invalid_token"
    /// The access token was valid but its lifetime is over (401).
    case tokenExpired = "token_expired"
    /// The username or password is wrong (401).
    case invalidCredentials = "invalid_credentials"
    /// The caller may not do this (403).
    ///
    /// The marketplace itself never refuses; the code exists for completeness and for scripts.
    case forbidden = "forbidden"
    /// The caller must solve the captcha in the payload first (403).
    case captchaRequired = "captcha_required"
    /// The captcha answer is wrong or the captcha unknown (400).
    case captchaInvalid = "captcha_invalid"
    /// A field of the request is invalid; `reason` and `field` say why and which (422).
    ///
    /// The status is 400 when the body is not JSON at all.
    case validationFailure = "validation_failure"
    /// No such task, route or captcha (404).
    case notFound = "not_found"
    /// The request contradicts the state of the task, such as answering a closed task (409).
    case conflict = "conflict"
    /// An `Idempotency-Key` was used again with a different request (409).
    case duplicateRequest = "duplicate_request"
    /// Too many requests; come back after `Retry-After` (429).
    case rateLimited = "rate_limited"
    /// The service is down for now; come back later (502, 503 or 504).
    case temporarilyUnavailable = "temporarily_unavailable"
    /// The server failed (500).
    case internalError = "internal_error"

    /// The status the server sends with the code, when nothing more specific applies.
    public var defaultStatus: Int {
        switch self {
        case .unauthorized, .invalidToken, .tokenExpired, .invalidCredentials: 401
        case .forbidden, .captchaRequired: 403
        case .captchaInvalid: 400
        case .validationFailure: 422
        case .notFound: 404
        case .conflict, .duplicateRequest: 409
        case .rateLimited: 429
        case .temporarilyUnavailable: 503
        case .internalError: 500
        }
    }
}
