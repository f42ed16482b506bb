extension Duration {
    /// The duration in seconds, for printing and JSON; never for arithmetic.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A duration of `seconds`, rounded to whole nanoseconds.
    ///
    /// `Duration.seconds(0.2)` carries the binary error of `0.2` down to the attosecond
    /// (0.200000000000000011 s); rounding to nanoseconds, the resolution of every clock and of
    /// Rebound's jitter, keeps the waits the tool prints as round as the options typed. The caller
    /// keeps `seconds` finite and within a day (``RetryPolicyOptions/longestSeconds``).
    init(roundingSeconds seconds: Double) {
        self = .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
