/// A failure the mock backend injects instead of, or on top of, its normal answer.
///
/// Each case reproduces something a real backend or the network in front of it does. Some reject the
/// request before the marketplace looks at it, so nothing is applied; the others let the marketplace
/// handle the request (an answer is stored, a token issued) and then spoil the response, which is what
/// makes idempotency keys necessary:
///
/// | Failure                  | On the wire                                                    | Applied? |
/// |--------------------------|----------------------------------------------------------------|----------|
/// | ``temporary(status:retryAfter:)`` | 502/503/504 `temporarily_unavailable`, maybe `Retry-After` | no |
/// | ``rateLimited(retryAfter:)`` | 429 `rate_limited`, maybe `Retry-After`                    | no       |
/// | ``tokenExpired``         | 401 `token_expired`, whatever the token                        | no       |
/// | ``captcha``              | 403 `captcha_required` with a challenge                        | no       |
/// | ``validation(field:reason:)`` | 422 `validation_failure` with the field and reason        | no       |
/// | ``stall``                | nothing; the connection stays open                             | no       |
/// | ``slow(milliseconds:)``  | silence for a while, then the normal answer                    | yes      |
/// | ``malformedJSON``        | 200 whose body is not JSON                                     | yes      |
/// | ``partlyMalformedJSON``  | the normal answer with one element's fields of the wrong type  | yes      |
/// | ``closeMidBody``         | the normal head, half the body, then the connection closes     | yes      |
/// | ``oversizedBody(bytes:)``| 200 streaming a huge JSON-like body (64 MiB by default)        | yes      |
///
/// A failure is written the same way everywhere it is named, in the `X-Mock-Failure` header, in a rule
/// posted to `/v1/scenario` and in its `description`; see ``init(_:)`` for the spellings.
public enum MockFailure: Sendable, Hashable {
    /// When a `Retry-After` header tells the client to come back.
    public enum RetryAfter: Sendable, Hashable {
        /// `Retry-After: N`, a number of seconds.
        case seconds(Int)
        /// `Retry-After: <HTTP-date>`, the IMF-fixdate this many seconds after the response is sent.
        case date(secondsFromNow: Int)
    }

    /// The service is down for now: `status` (502, 503 or 504) with `temporarily_unavailable`.
    case temporary(status: Int = 503, retryAfter: RetryAfter? = nil)
    /// Too many requests: 429 with `rate_limited`.
    case rateLimited(retryAfter: RetryAfter? = nil)
    /// The access token is treated as expired: 401 with `token_expired`.
    case tokenExpired
    /// A captcha is required now: 403 with `captcha_required` and a fresh (or the pending) challenge.
    case captcha
    /// The request is rejected as invalid: 422 with `validation_failure`, `field` and `reason`.
    case validation(field: String, reason: MockErrorReason)
    /// 200 with `Content-Type: application/json` and a body that is not JSON.
    case malformedJSON
    /// The normal answer with fields of the wrong type.
    ///
    /// One element of a list (or the object itself) gets `"id": "seven"`, `"reward": "lots"`.
    case partlyMalformedJSON
    /// The normal answer after `milliseconds` of silence (none if `milliseconds` is negative).
    case slow(milliseconds: Int)
    /// No answer at all; the connection stays open until the client gives up.
    case stall
    /// The normal head with a `Content-Length`, half the body, then the connection closes.
    case closeMidBody
    /// 200 with a streamed body of `bytes` bytes of JSON-like text, to trip a client's size limit.
    ///
    /// The body has at least 1 byte and at most ``maximumOversizedBodyBytes``.
    case oversizedBody(bytes: Int = MockFailure.defaultOversizedBodyBytes)

    /// The most bytes ``oversizedBody(bytes:)`` sends, 1 GiB, however many it asks for.
    ///
    /// Far past any client's limit, while the list of chunks the server builds for the body stays
    /// small (16,384 references to one shared chunk); asking for `Int.max` bytes must not exhaust the
    /// server's memory. Every size a spelling could name before numbers were unbounded (nine digits)
    /// is below it.
    public static let maximumOversizedBodyBytes = 1 << 30

    /// The default size of ``oversizedBody(bytes:)``: 64 MiB.
    ///
    /// Twice the 32 MiB that Rebound's transport accepts by default, so the limit trips without
    /// changing the client.
    public static let defaultOversizedBodyBytes = 64 * 1024 * 1024

    /// The name of the failure's kind, the key it is counted under in ``MockBackendStats/failuresInjected``.
    ///
    /// It is the first words of the failure's spelling: `temporary`, `rate-limited`, `token-expired`,
    /// `captcha`, `validation`, `malformed-json`, `partly-malformed-json`, `slow`, `stall`,
    /// `close-mid-body`, `oversized-body`.
    public var kind: String {
        switch self {
        case .temporary: "temporary"
        case .rateLimited: "rate-limited"
        case .tokenExpired: "token-expired"
        case .captcha: "captcha"
        case .validation: "validation"
        case .malformedJSON: "malformed-json"
        case .partlyMalformedJSON: "partly-malformed-json"
        case .slow: "slow"
        case .stall: "stall"
        case .closeMidBody: "close-mid-body"
        case .oversizedBody: "oversized-body"
        }
    }

    /// Whether the marketplace handles the request before the failure spoils the response.
    ///
    /// `false` for failures that stand for a server refusing the request; `true` for those that stand
    /// for a response lost or mangled on its way back.
    public var appliesRequest: Bool {
        switch self {
        case .temporary, .rateLimited, .tokenExpired, .captcha, .validation, .stall: false
        case .slow, .malformedJSON, .partlyMalformedJSON, .closeMidBody, .oversizedBody: true
        }
    }
}
