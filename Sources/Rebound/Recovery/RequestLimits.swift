/// The bounds of one request through the recovery pipeline.
///
/// | limit | default | why |
/// |---|---|---|
/// | ``maxAttempts`` | 4 | One try and three retries ride out a typical blip (a deploy, a failover) without turning an outage into four times the load; the retry budget stops retries sooner when many requests fail. |
/// | ``deadline`` | 30 s | About as long as a person waits for an answer before giving up; every attempt and wait fits inside it. |
/// | ``attemptTimeout`` | 10 s | A healthy API answers in well under a second; 10 s leaves room for a slow one and still allows a retry within the deadline. |
public struct RequestLimits: Hashable, Sendable {
    /// The most attempts, the first one included (at least 1).
    public var maxAttempts: Int
    /// The time for all attempts and waits together.
    public var deadline: Duration
    /// The time for one attempt (shortened to what is left of the deadline).
    public var attemptTimeout: Duration

    public init(maxAttempts: Int = 4, deadline: Duration = .seconds(30), attemptTimeout: Duration = .seconds(10)) {
        self.maxAttempts = max(1, maxAttempts)
        self.deadline = deadline
        self.attemptTimeout = attemptTimeout
    }
}

extension RequestLimits {
    /// 4 attempts within 30 s, 10 s each: see the table above.
    public static let `default` = RequestLimits()

    /// One attempt, no retries: for calls that must not be repeated, or whose caller retries.
    public static let singleAttempt = RequestLimits(maxAttempts: 1)

    /// 8 attempts within 10 min, 60 s each: background work that nobody waits for, which may take
    /// its time to get through an outage.
    public static let background = RequestLimits(
        maxAttempts: 8, deadline: .seconds(600), attemptTimeout: .seconds(60))
}
