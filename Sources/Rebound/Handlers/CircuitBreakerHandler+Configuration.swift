extension CircuitBreakerHandler {
    /// When a circuit opens, how long it stays open, and how it closes again.
    ///
    /// | setting | default | why |
    /// |---|---|---|
    /// | ``windowSize`` | 20 attempts | enough to tell an outage from bad luck, few enough that a client making a handful of calls a second notices an outage within seconds |
    /// | ``minimumAttempts`` | 10 | two failures of the first three must not open a circuit; resilience4j and Polly wait for 100, which a mobile or CLI client may never reach |
    /// | ``failureRatio`` | 0.5 (50 % or more) | resilience4j's `failureRateThreshold`: a service failing half the time is better left alone (Polly's 0.1 suits a server's high volume) |
    /// | ``breakDuration`` | 5 s | Polly's `BreakDuration`: long enough for a restarting service to come back, short enough that a person retrying sees it |
    /// | ``maximumBreakDuration`` | 60 s | resilience4j's `waitDurationInOpenState`; Envoy doubles its ejection up to 300 s for servers behind a balancer, where others can take the load |
    /// | ``breakJitter`` | 0.2 (±20 %) | clients that opened together must not probe together |
    /// | ``probeCount`` | 1 | Polly's half-open: one probe says whether the service is back, and costs it one request (resilience4j lets 10 through) |
    /// | ``failureStatuses`` | 500–504 | answers that say the service, not the request, is failing; 429 belongs to a rate limiter, other 4xx are the request's fault |
    /// | ``failureNetworkFailures`` | timeout, connectTimeout, stalled, cannotConnect, connectionReset, incompleteResponse | the service did not answer (Envoy counts timeouts and resets as 5xx); a TLS failure or a bad URL is not an outage |
    /// | ``maximumKeys`` | 1,000 | one circuit per host; a client that talks to more hosts forgets the least recently used closed ones |
    ///
    /// The break after the *n*-th failed probe in a row (0 for a circuit that opened from closed)
    /// is `min(maximumBreakDuration, breakDuration × 2ⁿ)`, then multiplied by a factor drawn
    /// uniformly from `1 ± breakJitter` and capped at ``maximumBreakDuration`` again:
    ///
    /// | failed probes | 0 | 1 | 2 | 3 | 4+ |
    /// |---|---|---|---|---|---|
    /// | break (default, before jitter) | 5 s | 10 s | 20 s | 40 s | 60 s |
    ///
    /// Out-of-range values are brought into range rather than refused: a window of at least 1,
    /// a minimum between 1 and the window, a ratio between 0 and 1, a jitter between 0 and 1, at
    /// least one probe and one key, a break of at least zero and a maximum of at least the break.
    public struct Configuration: Sendable, Hashable {
        /// How many of the most recent attempts of a closed circuit are counted.
        public var windowSize: Int
        /// How many attempts the window must hold before the circuit may open.
        public var minimumAttempts: Int
        /// The share of failures in the window, from 0 to 1, at which the circuit opens; it
        /// opens only on a failure, so 0 means at the first failure once the minimum is counted.
        public var failureRatio: Double
        /// How long the circuit stays open the first time.
        public var breakDuration: Duration
        /// The longest the circuit stays open, however many probes failed.
        public var maximumBreakDuration: Duration
        /// The random share by which each break is lengthened or shortened, from 0 to 1.
        public var breakJitter: Double
        /// How many probes a half-open circuit lets through at once, and how many must succeed
        /// before it closes.
        public var probeCount: Int
        /// The statuses that count as failures.
        public var failureStatuses: Set<Int>
        /// The network failures that count as failures.
        public var failureNetworkFailures: Set<NetworkErrorCode>
        /// The most circuits (keys) remembered at once.
        public var maximumKeys: Int

        public init(
            windowSize: Int = 20,
            minimumAttempts: Int = 10,
            failureRatio: Double = 0.5,
            breakDuration: Duration = .seconds(5),
            maximumBreakDuration: Duration = .seconds(60),
            breakJitter: Double = 0.2,
            probeCount: Int = 1,
            failureStatuses: Set<Int> = [500, 501, 502, 503, 504],
            failureNetworkFailures: Set<NetworkErrorCode> = [
                .timeout, .connectTimeout, .stalled, .cannotConnect, .connectionReset, .incompleteResponse,
            ],
            maximumKeys: Int = 1_000
        ) {
            self.windowSize = max(1, windowSize)
            self.minimumAttempts = min(max(1, minimumAttempts), self.windowSize)
            self.failureRatio = failureRatio.isNaN ? 0.5 : min(max(0, failureRatio), 1)
            self.breakDuration = max(.zero, breakDuration)
            self.maximumBreakDuration = max(self.breakDuration, maximumBreakDuration)
            self.breakJitter = breakJitter.isNaN ? 0 : min(max(0, breakJitter), 1)
            self.probeCount = max(1, probeCount)
            self.failureStatuses = failureStatuses
            self.failureNetworkFailures = failureNetworkFailures
            self.maximumKeys = max(1, maximumKeys)
        }

        /// The defaults of the table above.
        public static let `default` = Configuration()

        /// The break after `failedProbes` failed probes in a row, before jitter.
        func breakDuration(afterFailedProbes failedProbes: Int) -> Duration {
            var duration = breakDuration
            for _ in 0..<min(failedProbes, 64) where duration < maximumBreakDuration {
                duration *= 2
            }
            return min(duration, maximumBreakDuration)
        }

        /// The break after `failedProbes` failed probes in a row, with jitter drawn from `random`.
        func jitteredBreakDuration(
            afterFailedProbes failedProbes: Int,
            using random: inout some RandomNumberGenerator
        ) -> Duration {
            let duration = breakDuration(afterFailedProbes: failedProbes)
            guard breakJitter > 0 else { return duration }
            let spread = duration * breakJitter
            let jittered = Duration.uniform(in: (duration - spread)...(duration + spread), using: &random)
            return min(jittered, maximumBreakDuration)
        }
    }
}
