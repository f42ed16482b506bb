/// Submits a captcha answer to the backend, which then lets the held-back requests through.
///
/// The app implements it, usually by calling the backend's verification endpoint with the
/// challenge's identifier and the answer. It is separate from ``CaptchaSolver`` because the two
/// belong to different layers: the solver to the user interface, the verifier to the API.
public protocol CaptchaVerifier: Sendable {
    /// Submits `answer` to `challenge`.
    ///
    /// - Parameters:
    ///   - challenge: The challenge that was answered.
    ///   - answer: The person's answer.
    /// - Throws: When the backend rejects the answer or cannot be reached; the waiting requests
    ///   then fail with ``RecoveryErrorCode/captchaFailed``, with this error as the cause.
    func verify(_ challenge: CaptchaChallenge, answer: String) async throws
}

/// A ``CaptchaVerifier`` made of a closure.
struct ClosureCaptchaVerifier: CaptchaVerifier {
    let body: @Sendable (CaptchaChallenge, String) async throws -> Void

    func verify(_ challenge: CaptchaChallenge, answer: String) async throws {
        try await body(challenge, answer)
    }
}
