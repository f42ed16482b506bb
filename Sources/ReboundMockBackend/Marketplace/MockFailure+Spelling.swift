extension MockFailure: LosslessStringConvertible, Codable {
    /// Reads a failure from its spelling, as the `X-Mock-Failure` header and `/v1/scenario` rules write it.
    ///
    /// | Spelling                                   | Failure                                            |
    /// |--------------------------------------------|----------------------------------------------------|
    /// | `temporary-503` (or `-502`, `-504`, any 5xx) | ``temporary(status:retryAfter:)``                |
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
    /// Spellings are lower case; surrounding spaces are ignored. A field name in `validation-…` cannot
    /// contain `-`.
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
        let statusText = rest.prefix { $0.isASCII && $0.isNumber }
        guard statusText.count == 3, let status = Int(statusText), (500...599).contains(status) else { return nil }
        let suffix = rest.dropFirst(3)
        guard !suffix.isEmpty else { return .temporary(status: status) }
        return suffix.removingPrefix("-").flatMap(parseRetryAfter).map { .temporary(status: status, retryAfter: $0) }
    }

    /// `retry-after-N` or `retry-after-date-N`.
    private static func parseRetryAfter(_ text: Substring) -> RetryAfter? {
        if let seconds = text.removingPrefix("retry-after-date-").flatMap(Self.count) {
            return .date(secondsFromNow: seconds)
        }
        if let seconds = text.removingPrefix("retry-after-").flatMap(Self.count) {
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
        if let milliseconds = text.removingPrefix("slow-").flatMap(Self.count) {
            return .slow(milliseconds: milliseconds)
        }
        if let bytes = text.removingPrefix("oversized-body-").flatMap(Self.count) {
            return .oversizedBody(bytes: bytes)
        }
        if let rest = text.removingPrefix("validation-") {
            let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
            guard let field = parts.first, !field.isEmpty, parts.count <= 2 else { return nil }
            guard parts.count == 2 else { return .validation(field: String(field), reason: .invalidFormat) }
            return MockErrorReason(rawValue: String(parts[1])).map { .validation(field: String(field), reason: $0) }
        }
        return nil
    }

    /// A non-negative decimal number of at most nine digits, so that no spelling can overflow anything.
    private static func count(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
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
