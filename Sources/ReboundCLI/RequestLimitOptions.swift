import ArgumentParser
import Rebound

/// The time limits that `fetch` and `load` share: each attempt's and each call's.
///
/// Defaults come from ``RequestLimits``, so the tool cannot drift from what an app gets.
struct RequestLimitOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The time limit of each attempt, in seconds.", valueName: "seconds"))
    var timeout = RequestLimits().attemptTimeout.secondsValue

    @Option(
        help: ArgumentHelp(
            "The time limit of the whole request, every attempt and wait included, in seconds.", valueName: "seconds"))
    var deadline = RequestLimits().deadline.secondsValue

    func validate() throws {
        try RetryPolicyOptions.validateSeconds(timeout, option: "--timeout", allowsZero: false)
        try RetryPolicyOptions.validateSeconds(deadline, option: "--deadline", allowsZero: false)
    }

    /// The limits of a request that makes at most `maxAttempts` attempts.
    func limits(maxAttempts: Int) -> RequestLimits {
        RequestLimits(
            maxAttempts: maxAttempts,
            deadline: Duration(roundingSeconds: deadline),
            attemptTimeout: Duration(roundingSeconds: timeout)
        )
    }
}
