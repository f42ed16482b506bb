public import HTTPTypes
import RawStructuredFieldValues

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a response's header fields say about the server's rate limit: how long to wait, how many
/// requests remain, and the quota.
///
/// Read from, in this order of precedence:
///
/// | field | form | read as |
/// |---|---|---|
/// | `Retry-After` | seconds or an HTTP date (``RetryAfter``) | ``retryAfter``: it wins over the others |
/// | `RateLimit` (IETF draft 08 and later) | a structured list, `"default";r=50;t=30` | ``remaining`` (`r`) and ``reset`` (`t`, seconds) |
/// | `RateLimit-Policy` (draft 08 and later) | a structured list, `"burst";q=100;w=60` | ``quotaPerSecond`` (`q` ÷ `w`) |
/// | `X-RateLimit-Remaining`, `X-RateLimit-Reset` | integers | ``remaining``, and ``reset``: a value above 10⁹ is a date in seconds since 1970 (GitHub's), a smaller one a number of seconds |
///
/// Where the `RateLimit` field names several policies, the one with the fewest requests remaining
/// counts (the longest reset among those with none left); where `RateLimit-Policy` does, the
/// strictest quota. A policy whose quota is not counted in requests (`qu` other than `requests`)
/// or that has no window is left out. `RateLimit` and `X-RateLimit-*` are alternatives: the
/// standard field is read when it parses, the others otherwise.
///
/// A value that does not parse (a field that is not a structured list, a negative or fractional
/// count, a missing required parameter) is left out as if it were absent, never an error: a
/// server's broken hint must not fail a call that succeeded. Waits are clamped to
/// ``RetryAfter/longestDelay``.
///
/// ```swift
/// var fields = HTTPFields()
/// fields[HTTPField.Name("RateLimit")!] = #""default";r=0;t=12"#
/// let limits = RateLimitFields(fields, now: Date())
/// // limits.remaining == 0, limits.reset == .seconds(12): nothing more for 12 s.
/// ```
public struct RateLimitFields: Sendable, Hashable {
    /// The wait `Retry-After` asks for.
    public var retryAfter: Duration?
    /// How many requests the server will still accept before ``reset``.
    public var remaining: Int?
    /// The time until the quota is renewed.
    public var reset: Duration?
    /// The quota the server states, in requests per second.
    public var quotaPerSecond: Double?

    /// `RateLimit` (IETF draft 08 and later).
    public static let rateLimit = HTTPField.Name("RateLimit")!
    /// `RateLimit-Policy` (IETF draft 08 and later).
    public static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    /// `X-RateLimit-Remaining`, as GitHub and many others send it.
    public static let xRateLimitRemaining = HTTPField.Name("X-RateLimit-Remaining")!
    /// `X-RateLimit-Reset`: seconds, or a date in seconds since 1970 when above 10⁹.
    public static let xRateLimitReset = HTTPField.Name("X-RateLimit-Reset")!

    /// A reset above this many seconds is a date in seconds since 1970 rather than a wait: 10⁹ s is
    /// 31 years, longer than any quota window, and as a date it is September 2001, before any of
    /// these fields existed.
    static let epochThreshold: Int64 = 1_000_000_000

    /// Fields stated by hand, for tests and for servers that say it another way.
    public init(
        retryAfter: Duration? = nil, remaining: Int? = nil, reset: Duration? = nil, quotaPerSecond: Double? = nil
    ) {
        self.retryAfter = retryAfter
        self.remaining = remaining
        self.reset = reset
        self.quotaPerSecond = quotaPerSecond
    }

    /// Reads `fields`.
    ///
    /// - Parameters:
    ///   - fields: A response's header fields.
    ///   - now: The current date, for `Retry-After` dates and `X-RateLimit-Reset` dates.
    public init(_ fields: HTTPFields, now: Date) {
        if let value = fields[HTTPField.Name.retryAfter] {
            retryAfter = RetryAfter.parse(value, now: now)
        }
        if let value = Self.combined(fields, Self.rateLimit), let (remaining, reset) = Self.parseRateLimit(value) {
            self.remaining = remaining
            self.reset = reset
        } else {
            remaining = fields[Self.xRateLimitRemaining].flatMap(Self.count)
            reset = fields[Self.xRateLimitReset].flatMap { Self.xReset($0, now: now) }
        }
        if let value = Self.combined(fields, Self.rateLimitPolicy) {
            quotaPerSecond = Self.parsePolicy(value)
        }
    }

    /// Reads `response`'s fields. Most answers carry none of them: a head that holds no field
    /// named with `ratelimit` (nor, unless it is a success, `retry-after`) is then left unparsed
    /// (a transport may defer parsing it), and `now` is not asked. `Retry-After` means something
    /// on a 429, a 503 or a redirect (RFC 9110, 10.2.3), never on a success.
    package init(_ response: TransportResponse, now: () -> Date) {
        guard
            response.mayHaveHeaderField(nameContaining: "ratelimit")
                || (response.status.kind != .successful
                    && response.mayHaveHeaderField(nameContaining: "retry-after"))
        else {
            self.init()
            return
        }
        self.init(response.head.headerFields, now: now())
        if response.status.kind == .successful { retryAfter = nil }
    }

    /// Whether the fields say anything at all.
    public var isEmpty: Bool { self == RateLimitFields() }

    /// How long the server asks the client to send nothing: ``retryAfter`` when present, else
    /// ``reset`` when nothing ``remaining``; `nil` when it asks for no pause.
    public var pause: Duration? {
        if let retryAfter { return retryAfter }
        if remaining == 0 { return reset }
        return nil
    }

    // MARK: - Parsing

    /// Every line of a field, joined as one list (RFC 9110, 5.3).
    private static func combined(_ fields: HTTPFields, _ name: HTTPField.Name) -> String? {
        let values = fields[values: name]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The remaining count and reset of the most constrained policy in a `RateLimit` list.
    private static func parseRateLimit(_ value: String) -> (Int, Duration?)? {
        var best: (remaining: Int, reset: Duration?)?
        for parameters in listItemParameters(value) {
            guard let remaining = parameters["r"].flatMap(nonNegativeInteger) else { continue }
            let reset = parameters["t"].flatMap(nonNegativeInteger).map { Duration.seconds(min(Int64($0), maxSeconds)) }
            guard let current = best else {
                best = (remaining, reset)
                continue
            }
            if remaining < current.remaining
                || (remaining == current.remaining && (reset ?? .zero) > (current.reset ?? .zero))
            {
                best = (remaining, reset)
            }
        }
        return best.map { ($0.remaining, $0.reset) }
    }

    /// The strictest quota of a `RateLimit-Policy` list, in requests per second.
    private static func parsePolicy(_ value: String) -> Double? {
        var strictest: Double?
        for parameters in listItemParameters(value) {
            guard let quota = parameters["q"].flatMap(nonNegativeInteger),
                let window = parameters["w"].flatMap(nonNegativeInteger), window > 0
            else { continue }
            if let unit = parameters["qu"] {
                switch unit {
                case .string("requests"), .token("requests"): break
                default: continue
                }
            }
            let rate = Double(quota) / Double(window)
            strictest = min(strictest ?? rate, rate)
        }
        return strictest
    }

    /// The parameters of each item of a structured list; nothing when it does not parse.
    private static func listItemParameters(_ value: String) -> [[String: RFC9651BareItem]] {
        var parser = StructuredFieldValueParser(Array(value.utf8))
        guard let list = try? parser.parseListFieldValue() else { return [] }
        return list.compactMap { member in
            guard case .item(let item) = member else { return nil }
            var parameters: [String: RFC9651BareItem] = [:]
            for (key, value) in item.rfc9651Parameters { parameters[key] = value }
            return parameters
        }
    }

    private static func nonNegativeInteger(_ item: RFC9651BareItem) -> Int? {
        guard case .integer(let value) = item, value >= 0 else { return nil }
        return Int(value)
    }

    /// A count of requests: ASCII digits, nothing else (surrounding spaces aside).
    private static func count(_ value: String) -> Int? {
        guard let digits = digits(value) else { return nil }
        return Int(clamping: digits)
    }

    /// `X-RateLimit-Reset`: a date in seconds since 1970 when above ``epochThreshold``, else seconds.
    private static func xReset(_ value: String, now: Date) -> Duration? {
        guard let seconds = digits(value) else { return nil }
        guard seconds > epochThreshold else { return .seconds(min(seconds, maxSeconds)) }
        let wait = Double(seconds) - now.timeIntervalSince1970
        return .seconds(min(max(0, wait), Double(maxSeconds)))
    }

    /// The value of ASCII digits between optional spaces and tabs; more than eighteen digits
    /// (past what `Int64` surely holds) give `Int64.max`.
    private static func digits(_ value: String) -> Int64? {
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        let bytes = Array(value.utf8.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard bytes.count <= 18 else { return .max }
        return bytes.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
    }

    /// ``RetryAfter/longestDelay`` in seconds: every wait read here stays below it.
    private static let maxSeconds: Int64 = 2_147_483_648
}
