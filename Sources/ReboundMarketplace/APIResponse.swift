internal import Foundation
import ReboundMockBackend

/// A complete response of the marketplace, before any injected failure spoils it.
struct APIResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The response as the loopback server sends it.
    var reply: LoopbackReply {
        .respond(status: status, headers: headers, body: body)
    }

    static let jsonContentType = ("Content-Type", "application/json")

    /// `204 No Content`.
    static let noContent = APIResponse(status: 204)

    /// A response whose body is `value` as JSON, with sorted keys so that bodies are stable.
    static func json(_ value: some Encodable, status: Int = 200, headers: [(String, String)] = []) -> APIResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let body = try encoder.encode(value)
            return APIResponse(status: status, headers: [jsonContentType] + headers, body: Array(body))
        } catch {
            // The marketplace's own types always encode; this is here so the server never crashes.
            return APIResponse(
                status: 500,
                headers: [jsonContentType],
                body: Array(#"{"code":"internal_error","message":"The response could not be encoded."}"#.utf8)
            )
        }
    }

    /// An error in the one format every error of the mock backend has.
    ///
    /// - Parameters:
    ///   - code: The error's code.
    ///   - status: The status; by default the code's ``MockErrorCode/defaultStatus``.
    ///   - reason: The validation reason, if any.
    ///   - field: The field the error is about, if any.
    ///   - message: Text for a person.
    ///   - captcha: The challenge to solve, for `captcha_required`.
    ///   - headers: Further header fields, such as `Retry-After`.
    static func error(
        _ code: MockErrorCode,
        status: Int? = nil,
        reason: MockErrorReason? = nil,
        field: String? = nil,
        message: String,
        captcha: CaptchaPayload? = nil,
        headers: [(String, String)] = []
    ) -> APIResponse {
        var headers = headers
        if code == .unauthorized || code == .invalidToken || code == .tokenExpired {
            // RFC 6750: a bearer-token challenge tells the client which scheme to use.
            headers.append(("WWW-Authenticate", #"Bearer realm="marketplace", error="invalid_token""#))
        }
        let body = ErrorPayload(
            code: code.rawValue,
            reason: reason?.rawValue,
            message: message,
            field: field,
            captcha: captcha
        )
        return json(body, status: status ?? code.defaultStatus, headers: headers)
    }

    /// A `validation_failure` about `field`.
    static func invalid(_ field: String?, _ reason: MockErrorReason, _ message: String) -> APIResponse {
        error(.validationFailure, reason: reason, field: field, message: message)
    }

    /// The error body: `{"code", "reason"?, "message", "field"?, "captcha"?}`.
    struct ErrorPayload: Encodable {
        var code: String
        var reason: String?
        var message: String
        var field: String?
        var captcha: CaptchaPayload?
    }

    /// A captcha challenge: `{"id": "c-1", "question": "What is 3 + 4?"}`.
    struct CaptchaPayload: Encodable {
        var id: String
        var question: String
    }
}
