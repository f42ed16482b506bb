public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Reads the JSON error payloads most APIs send.
///
/// The error object may be the whole body or sit under a top-level `"error"` key:
///
/// ```json
/// {"code": "validation_failure", "reason": "value_out_of_bounds",
///  "message": "Price must be at most 100.", "field": "price",
///  "details": [{"field": "price", "reason": "value_out_of_bounds"}],
///  "captcha": {"id": "c-81", "question": "https://example.com/captcha/c-81.png"}}
/// ```
///
/// `code` (a string, or a number) maps to a ``BackendErrorCode`` through ``codes``; `reason`
/// (or, without one, the first detail's `reason`) maps to a nested ``ValidationErrorCode`` through
/// ``reasons``. A string that is in neither table still counts: the code becomes
/// ``BackendErrorCode/unknown``, without a nested code, and the backend's strings stay in the
/// context (``BackendErrorContextKey``) so that reports show what this client did not understand.
/// `message` becomes the error's ``LayerError/reason``. The error's cause is the ``HTTPError`` of
/// the response, so the chain keeps the status.
///
/// Only these fields are read, and no other part of the body is ever copied into the error: a
/// payload may echo the request, tokens included. The text that is copied into the context and
/// the reason is bounded in length and screened for words that look like secrets. Only the captcha
/// challenge is also kept as sent, in ``LayerError/captchaChallenge``, since the solver needs the
/// real question and the verifier the real identifier.
///
/// The body is untrusted. Bodies larger than ``maximumBodySize`` and bodies nested deeper than
/// 32 levels are not parsed at all; fields of the wrong type are ignored. Any body
/// the parser does not recognise yields `nil`, never a crash.
public struct JSONBackendErrorParser: BackendErrorParser {
    /// The backend's code strings and the codes they mean.
    ///
    /// Looked up as sent, then in lower case, so `"RATE_LIMITED"` finds `"rate_limited"`.
    public var codes: [String: BackendErrorCode]

    /// The backend's reason strings and the validation codes they mean.
    ///
    /// Looked up as sent, then in lower case.
    public var reasons: [String: ValidationErrorCode]

    /// The largest body the parser reads, in bytes.
    ///
    /// The default, 64 KiB, is hundreds of times the size of a real error payload; a larger body is
    /// something else (a page, a dump) and parsing it would only cost time and memory.
    public var maximumBodySize: Int

    /// The deepest nesting of arrays and objects the parser accepts.
    ///
    /// The format needs four levels (body, `error`, `details`, a detail); 32 leaves room for
    /// payloads with extra structure, and stops a body of ten thousand `[` from reaching the JSON
    /// parser at all.
    static let maximumNestingDepth = 32

    /// The default largest body: 64 KiB.
    public static let defaultMaximumBodySize = 64 * 1024

    /// The longest captcha question kept; a longer one is dropped rather than cut, since a cut
    /// address or image is useless.
    static let captchaQuestionLimit = 4096

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - codes: The backend's code strings and their meaning; ``defaultCodes`` covers common spellings.
    ///   - reasons: The backend's reason strings and their meaning; ``defaultReasons`` covers common spellings.
    ///   - maximumBodySize: The largest body to read, in bytes.
    public init(
        codes: [String: BackendErrorCode] = Self.defaultCodes,
        reasons: [String: ValidationErrorCode] = Self.defaultReasons,
        maximumBodySize: Int = Self.defaultMaximumBodySize
    ) {
        self.codes = codes
        self.reasons = reasons
        self.maximumBodySize = maximumBodySize
    }

    public func parse(_ response: HTTPResponse, body: Data) -> (any LayeredError)? {
        backendError(from: response, body: body)
    }

    /// The backend's error in the body, or `nil` when the body is not such a payload.
    ///
    /// The typed form of ``parse(_:body:)``.
    package func backendError(from response: HTTPResponse, body: Data) -> BackendError? {
        guard body.count <= maximumBodySize,
            let payload = JSONErrorPayload(body, maximumDepth: Self.maximumNestingDepth)
        else { return nil }

        var context = ErrorContext()
        func keep(_ text: String?, as key: String) {
            context[key] = text.map { ErrorContext.Value(UntrustedText.identifier($0)) }
        }
        keep(payload.code, as: BackendErrorContextKey.backendCode)
        keep(payload.reason, as: BackendErrorContextKey.backendReason)
        keep(payload.field, as: BackendErrorContextKey.field)

        var error = BackendError(
            payload.code.flatMap { Self.lookUp($0, in: codes) } ?? .unknown,
            nested: payload.reason.flatMap { Self.lookUp($0, in: reasons) }.map(NestedCode.init),
            cause: HTTPError(response: response),
            reason: payload.message.map(UntrustedText.message),
            context: context
        )
        if let id = payload.captchaID {
            error.captchaChallenge = CaptchaChallenge(
                id: UntrustedText.bounded(id, to: UntrustedText.identifierLimit),
                question: payload.captchaQuestion.flatMap { $0.count <= Self.captchaQuestionLimit ? $0 : nil }
            )
        }
        return error
    }

    private static func lookUp<Value>(_ key: String, in table: [String: Value]) -> Value? {
        table[key] ?? table[key.lowercased()]
    }
}

extension JSONBackendErrorParser {
    /// Common spellings of the codes, in `snake_case`.
    public static let defaultCodes: [String: BackendErrorCode] = [
        "unauthorized": .unauthorized,
        "unauthenticated": .unauthorized,
        "authentication_required": .unauthorized,
        "invalid_token": .unauthorized,
        "token_expired": .tokenExpired,
        "expired_token": .tokenExpired,
        "invalid_credentials": .invalidCredentials,
        "wrong_credentials": .invalidCredentials,
        "forbidden": .forbidden,
        "permission_denied": .forbidden,
        "access_denied": .forbidden,
        "account_blocked": .accountBlocked,
        "account_suspended": .accountBlocked,
        "account_disabled": .accountBlocked,
        "captcha_required": .captchaRequired,
        "captcha_invalid": .captchaInvalid,
        "invalid_captcha": .captchaInvalid,
        "validation_failure": .validationFailure,
        "validation_failed": .validationFailure,
        "validation_error": .validationFailure,
        "invalid_argument": .validationFailure,
        "not_found": .notFound,
        "conflict": .conflict,
        "duplicate_request": .duplicateRequest,
        "precondition_failed": .preconditionFailed,
        "unsupported_client_version": .unsupportedClientVersion,
        "client_version_unsupported": .unsupportedClientVersion,
        "upgrade_required": .unsupportedClientVersion,
        "bad_request": .badRequest,
        "invalid_request": .badRequest,
        "rate_limited": .rateLimited,
        "too_many_requests": .rateLimited,
        "rate_limit_exceeded": .rateLimited,
        "temporarily_unavailable": .temporarilyUnavailable,
        "service_unavailable": .temporarilyUnavailable,
        "maintenance": .temporarilyUnavailable,
        "internal_error": .internalError,
        "internal_server_error": .internalError,
        "quota_exceeded": .quotaExceeded,
    ]

    /// Common spellings of the validation reasons, in `snake_case`.
    public static let defaultReasons: [String: ValidationErrorCode] = [
        "value_out_of_bounds": .valueOutOfBounds,
        "out_of_range": .valueOutOfBounds,
        "too_large": .valueOutOfBounds,
        "too_small": .valueOutOfBounds,
        "missing_value": .missingValue,
        "missing": .missingValue,
        "required": .missingValue,
        "invalid_format": .invalidFormat,
        "too_long": .tooLong,
        "too_short": .tooShort,
        "not_unique": .notUnique,
        "already_exists": .notUnique,
        "unknown_field": .unknownField,
        "invalid_type": .invalidType,
        "invalid_choice": .invalidChoice,
    ]
}
