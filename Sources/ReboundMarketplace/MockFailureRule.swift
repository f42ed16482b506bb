/// A scripted failure for the requests to one route: "the next 2 `GET /v1/tasks` answer 503".
///
/// Rules are kept in the order they were added. For each request, the first rule that matches its
/// method and path and whose ``trigger`` fires decides the failure; a rule with a count fires until
/// its count is used up and then disappears. Rules take precedence over the run's scenario, and the
/// `X-Mock-Failure` header over both.
///
/// ```swift
/// backend.script(
///     MockFailureRule("GET", "/v1/tasks", failure: .temporary(status: 503, retryAfter: .seconds(1)), trigger: .times(2))
/// )
/// ```
///
/// Over HTTP (`POST /v1/scenario`), a rule is a JSON object whose `failure` is spelled as in the
/// `X-Mock-Failure` header, with `times` or `probability` (neither means always):
///
/// ```json
/// {"method": "GET", "path": "/v1/tasks", "failure": "retry-after-1", "times": 2}
/// ```
public struct MockFailureRule: Sendable, Hashable {
    /// Which matching requests a rule fails.
    public enum Trigger: Sendable, Hashable {
        /// The next `count` matching requests; then the rule is used up.
        case times(Int)
        /// Each matching request with this probability, drawn from the run's seeded generator.
        case probability(Double)
        /// Every matching request, until the script is cleared.
        case always

        /// The trigger that behaves the same and has a JSON form: a negative count is 0 (used up), a
        /// probability is clamped to 0…1, and NaN is 0.
        ///
        /// A draw is below 1 and never below 0, so a probability above 1 always fires and one below 0
        /// (or NaN) never does, as after clamping; each still draws once per matching request.
        var normalized: Trigger {
            switch self {
            case .times(let count): .times(max(0, count))
            case .probability(let probability): .probability(probability.isNaN ? 0 : min(max(probability, 0), 1))
            case .always: .always
            }
        }
    }

    /// The method to match, such as `"GET"`, or `nil` for any method.
    public var method: String?
    /// The path pattern to match.
    ///
    /// Segments match literally, except that `*` or a `{name}` placeholder matches any one segment, and
    /// a final `**` matches any number of segments, none included: `/v1/tasks/{id}/answers` matches
    /// every task's answers, `/v1/**` and `**` match everything. The query is not part of the path.
    public var path: String
    /// The failure the rule injects.
    public var failure: MockFailure
    /// Which matching requests fail.
    public var trigger: Trigger

    /// Creates a rule.
    ///
    /// - Parameters:
    ///   - method: The method to match, or `nil` for any method.
    ///   - path: The path pattern to match; see ``path``.
    ///   - failure: The failure to inject.
    ///   - trigger: Which matching requests fail; by default the next one only.
    public init(_ method: String? = nil, _ path: String, failure: MockFailure, trigger: Trigger = .times(1)) {
        self.method = method
        self.path = path
        self.failure = failure
        self.trigger = trigger
    }

    /// Creates a rule for every method on `path`.
    ///
    /// - Parameters:
    ///   - path: The path pattern to match; see ``path``.
    ///   - failure: The failure to inject.
    ///   - trigger: Which matching requests fail; by default the next one only.
    public init(_ path: String, failure: MockFailure, trigger: Trigger = .times(1)) {
        self.init(nil, path, failure: failure, trigger: trigger)
    }

    /// Whether the rule's method and path match a request.
    ///
    /// `HEAD` is matched by rules for `GET`, as the server answers it like `GET`.
    public func matches(method requestMethod: String, path requestPath: String) -> Bool {
        if let method, method != requestMethod, !(method == "GET" && requestMethod == "HEAD") {
            return false
        }
        return Self.pattern(path, matches: requestPath)
    }

    /// Whether `pattern` matches `path`, segment by segment.
    static func pattern(_ pattern: String, matches path: String) -> Bool {
        let patternSegments = pattern.split(separator: "/")
        let pathSegments = path.split(separator: "/")
        for (index, segment) in patternSegments.enumerated() {
            if segment == "**" && index == patternSegments.count - 1 { return true }
            guard index < pathSegments.count else { return false }
            let isWildcard = segment == "*" || (segment.hasPrefix("{") && segment.hasSuffix("}"))
            if !isWildcard && segment != pathSegments[index] { return false }
        }
        return patternSegments.count == pathSegments.count
    }
}

extension MockFailureRule: Codable {
    private enum CodingKeys: String, CodingKey {
        case method, path, failure, times, probability
    }

    /// Decodes a rule from `{"method", "path", "failure", "times" | "probability"}`.
    ///
    /// `method` is optional (any method); `path` defaults to `**` (every path); without `times` or
    /// `probability` the rule fires always.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        path = try container.decodeIfPresent(String.self, forKey: .path) ?? "**"
        failure = try container.decode(MockFailure.self, forKey: .failure)
        // A number out of range or of the wrong kind fails inside JSONDecoder with a message that does
        // not name the field ("The given data was not valid JSON." for 1e30), so every failure to read
        // a trigger says which field and what it takes.
        let timesRange = "times must be a whole number from 0 to \(Int.max)."
        let probabilityRange = "probability must be a number from 0 to 1."
        let times: Int?
        let probability: Double?
        do {
            times = try container.decodeIfPresent(Int.self, forKey: .times)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .times, in: container, debugDescription: timesRange)
        }
        do {
            probability = try container.decodeIfPresent(Double.self, forKey: .probability)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .probability, in: container, debugDescription: probabilityRange)
        }
        switch (times, probability) {
        case (let times?, nil):
            guard times >= 0 else {
                throw DecodingError.dataCorruptedError(forKey: .times, in: container, debugDescription: timesRange)
            }
            trigger = .times(times)
        case (nil, let probability?):
            guard (0...1).contains(probability) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .probability, in: container, debugDescription: probabilityRange)
            }
            trigger = .probability(probability)
        case (nil, nil):
            trigger = .always
        case (.some, .some):
            throw DecodingError.dataCorruptedError(
                forKey: .probability,
                in: container,
                debugDescription: "A rule has times or probability, not both."
            )
        }
    }

    /// Encodes the rule in the form ``init(from:)`` reads.
    ///
    /// A trigger out of the range that form takes is written as the trigger that behaves the same:
    /// a negative `times` as 0, a `probability` above 1 as 1, below 0 or NaN as 0 (JSON has no NaN or
    /// infinity). So every rule can be encoded, and reads back as the rule a backend keeps after
    /// `MockBackend.script(_:)`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(method, forKey: .method)
        try container.encode(path, forKey: .path)
        try container.encode(failure, forKey: .failure)
        switch trigger.normalized {
        case .times(let count): try container.encode(count, forKey: .times)
        case .probability(let probability): try container.encode(probability, forKey: .probability)
        case .always: break
        }
    }
}
