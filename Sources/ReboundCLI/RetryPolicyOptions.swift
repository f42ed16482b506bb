import ArgumentParser
import Rebound

/// The retry policy options that `fetch` and `simulate` share, so that a schedule explored with
/// `simulate` is exactly the one `fetch` uses.
///
/// Defaults come from the library (``Backoff``, ``RequestLimits``) rather than being repeated
/// here, so the tool cannot drift from what an app gets by default.
struct RetryPolicyOptions: ParsableArguments {
    /// The most attempts a command accepts.
    ///
    /// Far beyond any sensible retry count (the retry budget stops `fetch` after a few retries in
    /// a row anyway), and it keeps `simulate`'s table bounded.
    static let attemptRange = 1...100

    /// The longest delay, in seconds, any option accepts: a day.
    ///
    /// No retry policy waits that long, and the bound keeps every conversion to `Duration` exact.
    static let longestSeconds = 86_400.0

    @Option(
        help: ArgumentHelp(
            "The most attempts, the first one included (\(attemptRange.lowerBound)–\(attemptRange.upperBound)).",
            valueName: "n"))
    var maxAttempts = RequestLimits().maxAttempts

    @Option(help: ArgumentHelp("The exponential value of the first retry, in seconds.", valueName: "seconds"))
    var baseDelay = Backoff().base.secondsValue

    @Option(help: ArgumentHelp("The longest single wait (the backoff's cap), in seconds.", valueName: "seconds"))
    var maxDelay = Backoff().cap.secondsValue

    @Option(
        help: ArgumentHelp(
            "The factor by which the exponential value grows from one retry to the next (at least 1).",
            valueName: "factor"))
    var multiplier = Backoff().multiplier

    @Option(help: "How each wait is randomized around its exponential value.")
    var jitter = JitterOption(Backoff().jitter)

    @Option(
        help: ArgumentHelp(
            "Seed the random generator (0 to 18446744073709551615), to reproduce the same waits.",
            valueName: "seed"))
    var seed: UInt64?

    func validate() throws {
        guard Self.attemptRange.contains(maxAttempts) else {
            throw ValidationError(
                "--max-attempts must be from \(Self.attemptRange.lowerBound) to \(Self.attemptRange.upperBound) (got \(maxAttempts))."
            )
        }
        try Self.validateSeconds(baseDelay, option: "--base-delay", allowsZero: true)
        try Self.validateSeconds(maxDelay, option: "--max-delay", allowsZero: true)
        guard baseDelay <= maxDelay else {
            throw ValidationError(
                "--base-delay (\(baseDelay)) must not be longer than --max-delay (\(maxDelay)): no wait is ever longer than the cap."
            )
        }
        // Backoff treats a factor below 1 as 1; refusing it says so instead of quietly ignoring it.
        guard multiplier.isFinite, multiplier >= 1 else {
            throw ValidationError(
                "--multiplier must be a finite number of at least 1 (got \(multiplier)): waits never shrink from one retry to the next."
            )
        }
    }

    /// Checks a duration option given in seconds: finite, not negative (or positive), at most a
    /// day, and not a positive value that becomes 0 once rounded to whole nanoseconds.
    ///
    /// Every duration option becomes a `Duration` through ``Duration/init(roundingSeconds:)``, so a
    /// positive value under half a nanosecond would silently become 0: `--deadline 1e-10` would
    /// end the request before its first attempt (`RE2`), and `--base-delay 1e-10` would not wait
    /// at all. Such a value is refused instead, as a value out of range is.
    static func validateSeconds(_ value: Double, option: String, allowsZero: Bool) throws(ValidationError) {
        let lowerOK = allowsZero ? value >= 0 : value > 0
        guard value.isFinite, lowerOK, value <= longestSeconds else {
            let range = allowsZero ? "from 0" : "more than 0 and"
            throw ValidationError(
                "\(option) must be a number of seconds \(range) up to \(Int(longestSeconds)) (got \(value))."
            )
        }
        guard value == 0 || Duration(roundingSeconds: value) > .zero else {
            throw ValidationError(
                "\(option) \(value) rounds to 0: durations are whole nanoseconds, so give \(allowsZero ? "0 or " : "")at least 0.000000001 seconds."
            )
        }
    }

    /// The backoff these options describe.
    var backoff: Backoff {
        Backoff(
            base: Duration(roundingSeconds: baseDelay),
            multiplier: multiplier,
            cap: Duration(roundingSeconds: maxDelay),
            jitter: jitter.jitter
        )
    }
}
