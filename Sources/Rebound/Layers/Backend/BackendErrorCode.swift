/// The backend layer's error: what the server said went wrong, in its own error payload.
///
/// This is the `BE` layer, above ``HTTPError``: the status says *that* the request failed, the
/// payload says *why* (`BackendError.validationFailure(ValidationError.valueOutOfBounds) -
/// HTTPError.no400BadRequest`). A ``BackendErrorParser`` builds it from a response; the backend's
/// own strings stay in the ``LayerError/context`` (see ``BackendErrorContextKey``) so that a code
/// this client does not know yet is still visible in reports.
public typealias BackendError = LayerError<BackendErrorCode>

/// The codes of ``BackendError``: the categories of failure most JSON APIs report.
///
/// The categories are generic on purpose: a client reacts to *kinds* of failure (refresh the
/// token, show the captcha, back off), and a backend's finer codes map onto them through
/// ``JSONBackendErrorParser/codes``. The raw values are grouped by decade (10s authentication, 20s
/// captcha, 30s the request itself, 40s the server's state) and are stable identities: they never
/// change and a retired one is never reused.
public enum BackendErrorCode: Int, ErrorCode, CaseIterable {
    public static let domain = "BackendError"
    public static let shortName = "BE"

    /// The payload was recognised but its code is not one this client knows; the backend's own
    /// code is in the context as ``BackendErrorContextKey/backendCode``.
    case unknown = 1

    // MARK: Authentication

    /// The request carried no credential, or one the backend does not accept.
    case unauthorized = 10
    /// The access token was valid once and has expired: refreshing it should help.
    case tokenExpired = 11
    /// The login or password (or another credential a person typed) is wrong: refreshing cannot help.
    case invalidCredentials = 12
    /// The caller is known but not allowed to do this.
    case forbidden = 13
    /// The account is blocked or suspended; only support can help.
    case accountBlocked = 14

    // MARK: Captcha

    /// The backend wants proof of a human before it goes on; the challenge is in the context
    /// (see ``LayerError/captchaChallenge``).
    case captchaRequired = 20
    /// The captcha answer was wrong or stale.
    case captchaInvalid = 21

    // MARK: The request

    /// The request was well formed but a value in it was rejected; the nested
    /// ``ValidationErrorCode`` says how, and the context names the field. 30 is the code the talk's
    /// example chain shows (`TB30`).
    case validationFailure = 30
    /// The thing the request refers to does not exist.
    case notFound = 31
    /// The request conflicts with the current state of the thing it changes.
    case conflict = 32
    /// The same request was already received (an idempotency key was reused).
    case duplicateRequest = 33
    /// A condition the request set (a version, an ETag) no longer holds.
    case preconditionFailed = 34
    /// This version of the client is too old for the backend: the app must be updated.
    case unsupportedClientVersion = 35
    /// The request is malformed in a way that is not about one field's value.
    case badRequest = 36

    // MARK: The server's state

    /// Too many requests in a short time: wait (the response may say how long) and try again.
    case rateLimited = 40
    /// The server is down for maintenance or overloaded, and says so: try again later.
    case temporarilyUnavailable = 41
    /// The server failed in a way it does not explain.
    case internalError = 42
    /// A quota (of storage, of requests per day, of paid usage) is used up; waiting seconds will
    /// not help, unlike ``rateLimited``.
    case quotaExceeded = 43
}

/// The keys under which a ``BackendError`` keeps the backend's own words in its context.
///
/// Only these are ever copied out of a payload, never other fields, which might carry tokens or
/// personal data.
public enum BackendErrorContextKey {
    /// The backend's code string as it sent it, such as `"validation_failure"`, bounded in length.
    public static let backendCode = "backendCode"
    /// The backend's reason string as it sent it, such as `"value_out_of_bounds"`, bounded in length.
    public static let backendReason = "backendReason"
    /// The name of the field that failed validation, such as `"price"`.
    public static let field = "field"
    /// The identifier of the captcha challenge, screened for what looks like a secret: for reading
    /// in logs and reports. The identifier to answer with is ``LayerError/captchaChallenge``'s.
    public static let captchaID = "captchaId"
    /// The captcha question, or the address of its image, screened for what looks like a secret
    /// (the signature of a signed address): for reading in logs and reports. The question to show
    /// is ``LayerError/captchaChallenge``'s.
    public static let captchaQuestion = "captchaQuestion"
}
