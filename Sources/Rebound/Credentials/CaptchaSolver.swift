/// Gets a person's answer to a captcha: the app shows a dialog, a command-line tool prompts.
///
/// ``CaptchaRequiredHandler`` asks it at most once for any number of requests that meet the same
/// challenge, so the person sees one dialog, not one per request.
public protocol CaptchaSolver: Sendable {
    /// Shows `challenge` to the person and returns their answer.
    ///
    /// - Parameter challenge: The challenge: its identifier and the question or image to show.
    /// - Returns: The person's answer, as typed.
    /// - Throws: ``CaptchaDismissed`` (or `CancellationError`) when the person closes the dialog
    ///   without answering, which ends the waiting requests with
    ///   ``RecoveryErrorCode/captchaCancelled``; any other error ends them with
    ///   ``RecoveryErrorCode/captchaFailed``.
    func solve(_ challenge: CaptchaChallenge) async throws -> String
}

/// Thrown by a ``CaptchaSolver`` when the person dismisses the captcha instead of answering it.
public struct CaptchaDismissed: Error, Hashable, Sendable {
    public init() {}
}

/// A ``CaptchaSolver`` made of a closure.
struct ClosureCaptchaSolver: CaptchaSolver {
    let body: @Sendable (CaptchaChallenge) async throws -> String

    func solve(_ challenge: CaptchaChallenge) async throws -> String {
        try await body(challenge)
    }
}
