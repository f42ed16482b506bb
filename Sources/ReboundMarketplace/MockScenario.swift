/// A failure pattern for a whole run of the mock backend, chosen when it starts.
///
/// Scenarios apply to every marketplace request (the control routes, `/v1/stats`, `/v1/scenario`,
/// `/v1/reset` and `/v1/clock/advance`, are exempt). Per-route rules and the `X-Mock-Failure` header
/// take precedence over them. Each has a name, used by `mock-backend --scenario` and
/// `/v1/scenario`, optionally followed by `:` and its parameter:
///
/// | Name (parameter)                | Behaviour                                                       |
/// |---------------------------------|-----------------------------------------------------------------|
/// | `none`                          | no failures                                                     |
/// | `flaky` (`flaky:0.3`)           | each request answers 503 with this probability, drawn from the seed |
/// | `outage` (`outage:5`)           | the first N requests answer 503, then the service recovers      |
/// | `rate-limited` (`rate-limited:5`, `rate-limited:5:2`) | after every N requests that pass, one answers 429 with `Retry-After: S` (default 1) |
/// | `expiring-tokens` (`expiring-tokens:5`) | access tokens live N seconds instead of the configured lifetime |
public enum MockScenario: Sendable, Hashable {
    /// No failures.
    case none
    /// Each request answers 503 `temporarily_unavailable` with `probability`, drawn from the seed.
    ///
    /// Above 1 every request fails, below 0 (or NaN) none does, just as with 1 and 0.
    ///
    /// The default, 0.3, fails often enough that a short session meets several failures, and rarely
    /// enough that a client retrying three times almost always gets through (0.3³ ≈ 3 %).
    case flaky(probability: Double = 0.3)
    /// The first `requests` requests answer 503 `temporarily_unavailable`; later ones succeed.
    ///
    /// Fewer than 0 fail none, as 0 does.
    ///
    /// The default, 5, outlasts a client's first burst of retries without outlasting its patience.
    case outage(requests: Int = 5)
    /// After every `burst` requests that pass, one answers 429 `rate_limited`.
    ///
    /// The 429 has `Retry-After: retryAfterSeconds`, whatever the number (a negative one as a broken
    /// server would send it). Counted in requests rather than time, so the same run gives the same answers
    /// however fast it goes. A burst below 1 lets 1 request through, as 1 does.
    case rateLimited(burst: Int = 5, retryAfterSeconds: Int = 1)
    /// Access tokens live `lifetimeSeconds` instead of the configured lifetime.
    ///
    /// Refreshing is then exercised within seconds. With 0 or fewer, every token has expired as soon as
    /// it is issued, and the login's `expiresIn` is `lifetimeSeconds`.
    case expiringTokens(lifetimeSeconds: Int = 5)

    /// The names of the scenarios, in the order they are documented.
    public static let names = ["none", "flaky", "outage", "rate-limited", "expiring-tokens"]

    /// The scenario that behaves the same and has a spelling: a probability clamped to 0…1 (NaN as 0),
    /// a negative outage as 0 requests, a burst below 1 as 1.
    ///
    /// A draw is below 1 and never below 0, so a probability above 1 always fails a request and one below 0
    /// (or NaN) never does, as after clamping; each still draws once per request. An outage of fewer than 0
    /// requests fails none, and the backend lets a burst of at least 1 through.
    var normalized: MockScenario {
        switch self {
        case .none, .expiringTokens: self
        case .flaky(let probability): .flaky(probability: probability.isNaN ? 0 : min(max(probability, 0), 1))
        case .outage(let requests): .outage(requests: max(0, requests))
        case .rateLimited(let burst, let retryAfter): .rateLimited(burst: max(1, burst), retryAfterSeconds: retryAfter)
        }
    }

    /// The scenario's name without its parameter, such as `"flaky"`.
    public var name: String {
        switch self {
        case .none: "none"
        case .flaky: "flaky"
        case .outage: "outage"
        case .rateLimited: "rate-limited"
        case .expiringTokens: "expiring-tokens"
        }
    }
}

extension MockScenario: LosslessStringConvertible, Codable {
    /// Reads a scenario from its name, optionally followed by `:` and its parameter.
    ///
    /// `flaky` takes a probability from 0 to 1; `outage` a whole number of requests, at least 0;
    /// `rate-limited` a burst of at least 1 and, after another `:`, the seconds of its `Retry-After`, any
    /// whole number (a negative one is sent as it is, as a broken server would send it);
    /// `expiring-tokens` any whole number of seconds (with 0 or fewer, every token has expired as soon
    /// as it is issued). A whole number is any `Int`. Without a parameter each uses its default.
    ///
    /// Every scenario the Swift API can hold has a spelling that reads back to one that behaves the same
    /// (its ``description``), so a scenario shown by `GET /v1/scenario` can be posted to another backend.
    ///
    /// - Parameter description: The spelling, such as `"flaky"` or `"outage:10"`.
    /// - Returns: The scenario, or `nil` for an unknown name or an invalid parameter.
    public init?(_ description: String) {
        let parts = description.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0]
        let parameter = parts.count > 1 ? String(parts[1]) : nil
        func whole(_ defaultValue: Int, minimum: Int) -> Int? {
            guard let parameter else { return defaultValue }
            guard let value = Int(parameter), value >= minimum else { return nil }
            return value
        }
        switch name {
        case "none" where parameter == nil:
            self = .none
        case "flaky":
            guard let parameter else {
                self = .flaky()
                return
            }
            guard let probability = Double(parameter), (0...1).contains(probability) else { return nil }
            self = .flaky(probability: probability)
        case "outage":
            guard let requests = whole(5, minimum: 0) else { return nil }
            self = .outage(requests: requests)
        case "rate-limited":
            // `rate-limited:BURST` or `rate-limited:BURST:SECONDS`.
            let numbers = parameter.map { $0.split(separator: ":", omittingEmptySubsequences: false) } ?? []
            guard numbers.count <= 2 else { return nil }
            let burst = numbers.first.map { Int($0) } ?? 5
            let retryAfter = numbers.count == 2 ? Int(numbers[1]) : 1
            guard let burst, let retryAfter, burst >= 1 else { return nil }
            self = .rateLimited(burst: burst, retryAfterSeconds: retryAfter)
        case "expiring-tokens":
            guard let lifetime = whole(5, minimum: .min) else { return nil }
            self = .expiringTokens(lifetimeSeconds: lifetime)
        default:
            return nil
        }
    }

    /// The scenario's name with its parameter, such as `"flaky:0.3"`, which ``init(_:)`` reads back.
    ///
    /// A parameter out of the range ``init(_:)`` takes is written as the one that behaves the same: a
    /// probability above 1 as 1, below 0 or NaN as 0, an outage below 0 as 0, a burst below 1 as 1.
    public var description: String {
        switch normalized {
        case .none: "none"
        case .flaky(let probability): "flaky:\(probability)"
        case .outage(let requests): "outage:\(requests)"
        case .rateLimited(let burst, let retryAfter):
            "rate-limited:\(burst)" + (retryAfter == 1 ? "" : ":\(retryAfter)")
        case .expiringTokens(let lifetime): "expiring-tokens:\(lifetime)"
        }
    }

    /// Decodes a scenario from its spelling, a JSON string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let scenario = MockScenario(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\"\(text)\" is not a scenario; use one of \(Self.names.joined(separator: ", "))."
            )
        }
        self = scenario
    }

    /// Encodes the scenario as its spelling, a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
