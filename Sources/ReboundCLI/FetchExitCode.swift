import ArgumentParser

/// How `rebound fetch` ends, as its exit status.
///
/// | status | meaning |
/// |---|---|
/// | 0 | the request succeeded: the last attempt got a 2xx answer |
/// | 1 | HTTP failure: the server's last answer was not 2xx (after any retries) |
/// | 3 | network failure: the last attempt got no answer (refused, reset, timed out, …) |
/// | 64 | invalid arguments (ArgumentParser's `EX_USAGE` for validation and parsing errors) |
///
/// 2 is unused: every invalid argument, whether ArgumentParser or the tool's own validation finds
/// it, exits with ArgumentParser's 64 (`EX_USAGE` of sysexits.h), so a script tests one code.
enum FetchExitCode: Int32 {
    case success = 0
    case httpFailure = 1
    case networkFailure = 3

    /// The exit status of a failed call whose last attempt is `last`.
    init(failureWithLastAttempt last: FetchAttempt?) {
        self = last?.status != nil ? .httpFailure : .networkFailure
    }

    var exitCode: ExitCode { ExitCode(rawValue) }
}
