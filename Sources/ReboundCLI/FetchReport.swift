/// What `rebound fetch --json` prints: one JSON object.
///
/// ```json
/// {"attempts":[{"delayBeforeSeconds":0,"error":"HT503","number":1,"status":503},
///              {"delayBeforeSeconds":0.137,"error":null,"number":2,"status":200}],
///  "bodyBytes":5,"elapsedSeconds":0.152,"error":null,"ok":true,"status":200,
///  "url":"http://127.0.0.1:8080/flaky"}
/// ```
///
/// (on one line, keys sorted). Every key is always present: a missing value is an explicit
/// `null`, never an absent key, so a script reads the same shape for every outcome.
struct FetchReport: Codable, Hashable {
    /// One attempt.
    struct Attempt: Codable, Hashable {
        /// From 1.
        var number: Int
        /// The response status, or `null` when no response arrived.
        var status: Int?
        /// The short chain of the attempt's failure, or `null` for a success.
        var error: String?
        /// The wait before this attempt, in seconds; 0 for the first.
        var delayBeforeSeconds: Double

        init(_ attempt: FetchAttempt) {
            number = attempt.number
            status = attempt.status
            error = attempt.error
            delayBeforeSeconds = attempt.delayBefore.secondsValue
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(number, forKey: .number)
            try container.encodeOrNull(status, forKey: .status)
            try container.encodeOrNull(error, forKey: .error)
            try container.encode(delayBeforeSeconds, forKey: .delayBeforeSeconds)
        }
    }

    /// The final error.
    struct Failure: Codable, Hashable {
        /// The short chain, such as `AP1-RE1-HT503`.
        var short: String
        /// The full chain, such as `APIError.requestFailed - RecoveryError.retriesExhausted - …`.
        var full: String
        /// What a person would be told (``ErrorPresenter``'s message).
        var message: String
    }

    /// The URL as given, screened: without user information and secrets (``FetchTarget/shown``).
    var url: String
    /// Whether the request succeeded (2xx).
    var ok: Bool
    /// The last attempt's status, or `null` when it got no response.
    var status: Int?
    /// Every attempt, oldest first.
    var attempts: [Attempt]
    /// The final error, or `null` on success.
    var error: Failure?
    /// The size of the response body on success; 0 on failure, whose body is not kept.
    var bodyBytes: Int
    /// The time from sending the first attempt to the outcome, waits included, in seconds.
    var elapsedSeconds: Double

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(ok, forKey: .ok)
        try container.encodeOrNull(status, forKey: .status)
        try container.encode(attempts, forKey: .attempts)
        try container.encodeOrNull(error, forKey: .error)
        try container.encode(bodyBytes, forKey: .bodyBytes)
        try container.encode(elapsedSeconds, forKey: .elapsedSeconds)
    }
}

extension KeyedEncodingContainer {
    /// Encodes `value`, or an explicit `null` where `encodeIfPresent` would leave the key out.
    mutating func encodeOrNull(_ value: (some Encodable)?, forKey key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            try encodeNil(forKey: key)
        }
    }
}
