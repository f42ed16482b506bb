extension AdaptiveRateLimitHandler {
    /// How the send rate is cut and grown back, and what the limiter remembers.
    ///
    /// The defaults are the AWS SDKs' adaptive retry mode (botocore's `ClientRateLimiter`), where
    /// the rate is a congestion window as TCP's CUBIC grows it (RFC 9438):
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``beta`` | 0.7 | CUBIC's β: a throttle cuts the rate to 70 % of what was measured; gentler than halving, since a throttled API is busy, not broken |
    /// | ``scaleConstant`` | 0.4 | CUBIC's C: after a cut the rate is back where it was after `∛(rate × (1 − β) / C)` seconds (about 4 s from 100 requests a second), then probes above it |
    /// | ``smoothing`` | 0.8 | the weight of the latest half second in the measured rate: a burst shows at once, a lull does not erase the history |
    /// | ``measuringInterval`` | 0.5 s | the measured rate's time bucket |
    /// | ``minimumRate`` | 0.5 per second | the floor of the rate: a client still learns when the server is back |
    /// | ``maximumRateScale`` | 2 | the rate never exceeds twice the measured rate, so a limiter idle for minutes does not wake with a burst its CUBIC curve grew meanwhile |
    /// | ``throttlingStatuses`` | 429 | Too Many Requests (RFC 6585) is the answer that says "slower"; a 503 says the service is down, which is the circuit breaker's to judge |
    /// | ``maximumPause`` | 60 s | the longest a server's `Retry-After` or reset pauses a host, like ``RetryAfterPolicy``'s maximum: an absurd or hostile value must not block a host for hours; a server that still refuses then says so again |
    /// | ``maximumKeys`` | 1,000 | one bucket per host; a client that talks to more forgets the least recently used idle ones |
    ///
    /// The bucket holds at most `max(rate, 1)` tokens, and a rate the server states in
    /// `RateLimit-Policy` is a ceiling on the rate. Out-of-range values are brought into range:
    /// `beta` between 0.05 and 1, the scale constant, the smoothing and the minimum rate above
    /// zero (the smoothing at most 1), the interval at least a millisecond, the scale at least 1,
    /// the pause at least zero, at least one key.
    public struct Configuration: Sendable, Hashable {
        /// The share of the measured rate a throttle leaves.
        public var beta: Double
        /// CUBIC's scale constant: how fast the rate grows back.
        public var scaleConstant: Double
        /// The weight of the latest interval in the measured rate, from 0 to 1.
        public var smoothing: Double
        /// The time bucket of the measured rate.
        public var measuringInterval: Duration
        /// The lowest rate, in requests per second.
        public var minimumRate: Double
        /// The rate never exceeds this many times the measured rate.
        public var maximumRateScale: Double
        /// The statuses that mean "too many requests".
        public var throttlingStatuses: Set<Int>
        /// The longest pause a server's fields impose.
        public var maximumPause: Duration
        /// The most buckets (keys) remembered at once.
        public var maximumKeys: Int

        public init(
            beta: Double = 0.7,
            scaleConstant: Double = 0.4,
            smoothing: Double = 0.8,
            measuringInterval: Duration = .milliseconds(500),
            minimumRate: Double = 0.5,
            maximumRateScale: Double = 2,
            throttlingStatuses: Set<Int> = [429],
            maximumPause: Duration = .seconds(60),
            maximumKeys: Int = 1_000
        ) {
            self.beta = beta.isNaN ? 0.7 : min(max(0.05, beta), 1)
            self.scaleConstant = scaleConstant.isNaN || scaleConstant <= 0 ? 0.4 : scaleConstant
            self.smoothing = smoothing.isNaN || smoothing <= 0 ? 0.8 : min(smoothing, 1)
            self.measuringInterval = max(.milliseconds(1), measuringInterval)
            self.minimumRate = minimumRate.isNaN || minimumRate <= 0 ? 0.5 : minimumRate
            self.maximumRateScale = maximumRateScale.isNaN ? 2 : max(1, maximumRateScale)
            self.throttlingStatuses = throttlingStatuses
            self.maximumPause = max(.zero, maximumPause)
            self.maximumKeys = max(1, maximumKeys)
        }

        /// The defaults of the table above.
        public static let `default` = Configuration()
    }
}
