extension MockFailure: LosslessStringConvertible, Codable {
    /// Reads a failure from its spelling, as the `X-Mock-Failure` header and `/v1/scenario` rules write it.
    ///
    /// | Spelling                                   | Failure                                            |
    /// |--------------------------------------------|----------------------------------------------------|
    /// | `temporary-503` (or `-502`, `-504`, any status) | ``temporary(status:retryAfter:)``             |
    /// | `temporary-503-retry-after-2`              | the same with `Retry-After: 2`                      |
    /// | `temporary-503-retry-after-date-2`         | the same with an HTTP-date 2 s ahead               |
    /// | `retry-after-2`, `retry-after-date-2`      | 503 with that `Retry-After`                        |
    /// | `rate-limited`, `rate-limited-retry-after-2`, `rate-limited-retry-after-date-2` | ``rateLimited(retryAfter:)`` |
    /// | `token-expired`                            | ``tokenExpired``                                   |
    /// | `captcha`                                  | ``captcha``                                        |
    /// | `validation`, `validation-FIELD`, `validation-FIELD-REASON` | ``validation(field:reason:)``; the field defaults to `answer`, the reason to `invalid_format` |
    /// | `malformed-json`                           | ``malformedJSON``                                  |
    /// | `partly-malformed-json`                    | ``partlyMalformedJSON``                            |
    /// | `slow-250` (`slow` alone: 1000)            | ``slow(milliseconds:)``                            |
    /// | `stall`                                    | ``stall``                                          |
    /// | `close-mid-body`                           | ``closeMidBody``                                   |
    /// | `oversized-body`, `oversized-body-1048576` | ``oversizedBody(bytes:)``                          |
    ///
    /// Spellings are lower case; surrounding spaces are ignored. A number is any `Int`, written in
    /// decimal with a `-` before a negative one (`slow--5`, `retry-after-date--60`), so that every
    /// failure the Swift API can hold has a spelling that reads back to it. In `validation-FIELD-REASON`
    /// the reason is what follows the last `-`, so the field may contain `-` (`validation-answer-text-too_long`)
    /// or be empty (`validation--too_long`); without a reason, the field cannot contain `-`.
    ///
    /// - Parameter description: The spelling.
    /// - Returns: The failure, or `nil` if `description` is not one of the spellings above.
    public init?(_ description: String) {
        let text = description.trimmingSpaces()
        if let failure = Self.parseTemporary(text) ?? Self.parseOther(text) {
            self = failure
        } else {
            return nil
        }
    }

    /// The failure's spelling, which ``init(_:)`` reads back to the same failure.
    public var description: String {
        switch self {
        case .temporary(let status, let retryAfter):
            "temporary-\(status)" + Self.spelling(of: retryAfter)
        case .rateLimited(let retryAfter):
            "rate-limited" + Self.spelling(of: retryAfter)
        case .tokenExpired:
            "token-expired"
        case .captcha:
            "captcha"
        case .validation(let field, let reason):
            "validation-\(field)-\(reason.rawValue)"
        case .malformedJSON:
            "malformed-json"
        case .partlyMalformedJSON:
            "partly-malformed-json"
        case .slow(let milliseconds):
            "slow-\(milliseconds)"
        case .stall:
            "stall"
        case .closeMidBody:
            "close-mid-body"
        case .oversizedBody(let bytes):
            "oversized-body-\(bytes)"
        }
    }

    /// Decodes a failure from its spelling, a JSON string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let failure = MockFailure(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\"\(text)\" is not a mock failure; see the X-Mock-Failure spellings."
            )
        }
        self = failure
    }

    /// Encodes the failure as its spelling, a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func spelling(of retryAfter: RetryAfter?) -> String {
        switch retryAfter {
        case nil: ""
        case .seconds(let seconds): "-retry-after-\(seconds)"
        case .date(let seconds): "-retry-after-date-\(seconds)"
        }
    }

    /// `temporary-…`, `retry-after-…` and `rate-limited…`, which share the `Retry-After` suffix.
    private static func parseTemporary(_ text: Substring) -> MockFailure? {
        if text.hasPrefix("retry-after-") {
            return parseRetryAfter(text).map { .temporary(status: 503, retryAfter: $0) }
        }
        if let rest = text.removingPrefix("rate-limited") {
            guard rest.isEmpty else {
                return rest.removingPrefix("-").flatMap(parseRetryAfter).map { .rateLimited(retryAfter: $0) }
            }
            return .rateLimited()
        }
        guard let rest = text.removingPrefix("temporary-") else { return nil }
        let sign = rest.hasPrefix("-") ? 1 : 0
        let statusText = rest.prefix(sign + rest.dropFirst(sign).prefix { $0.isASCII && $0.isNumber }.count)
        guard let status = Self.integer(statusText) else { return nil }
        let suffix = rest.dropFirst(statusText.count)
        guard !suffix.isEmpty else { return .temporary(status: status) }
        return suffix.removingPrefix("-").flatMap(parseRetryAfter).map { .temporary(status: status, retryAfter: $0) }
    }

    /// `retry-after-N` or `retry-after-date-N`.
    private static func parseRetryAfter(_ text: Substring) -> RetryAfter? {
        if let seconds = text.removingPrefix("retry-after-date-").flatMap(Self.integer) {
            return .date(secondsFromNow: seconds)
        }
        if let seconds = text.removingPrefix("retry-after-").flatMap(Self.integer) {
            return .seconds(seconds)
        }
        return nil
    }

    private static func parseOther(_ text: Substring) -> MockFailure? {
        switch text {
        case "token-expired": return .tokenExpired
        case "captcha": return .captcha
        case "validation": return .validation(field: "answer", reason: .invalidFormat)
        case "malformed-json": return .malformedJSON
        case "partly-malformed-json": return .partlyMalformedJSON
        case "slow": return .slow(milliseconds: 1000)
        case "stall": return .stall
        case "close-mid-body": return .closeMidBody
        case "oversized-body": return .oversizedBody()
        default: break
        }
        if let milliseconds = text.removingPrefix("slow-").flatMap(Self.integer) {
            return .slow(milliseconds: milliseconds)
        }
        if let bytes = text.removingPrefix("oversized-body-").flatMap(Self.integer) {
            return .oversizedBody(bytes: bytes)
        }
        if let rest = text.removingPrefix("validation-") {
            // `FIELD-REASON`, split at the last `-` (a reason has none), or a `FIELD` without `-`.
            guard let lastDash = rest.lastIndex(of: "-") else {
                return rest.isEmpty ? nil : .validation(field: String(rest), reason: .invalidFormat)
            }
            let field = String(rest[..<lastDash])
            return MockErrorReason(rawValue: String(rest[rest.index(after: lastDash)...])).map {
                .validation(field: field, reason: $0)
            }
        }
        return nil
    }

    /// A decimal `Int`, with `-` before a negative one: what `description` writes for any number.
    ///
    /// Unlike `Int(_:)`, it refuses a `+`, so that each number has a single spelling but for leading zeros.
    private static func integer(_ text: Substring) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}

extension Substring {
    /// The text after `prefix`, or `nil` if the text does not start with it.
    fileprivate func removingPrefix(_ prefix: String) -> Substring? {
        guard hasPrefix(prefix) else { return nil }
        return dropFirst(prefix.count)
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
