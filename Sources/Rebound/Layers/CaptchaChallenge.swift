/// A captcha the backend asks a person to solve before it goes on with a request.
///
/// A ``BackendError`` with ``BackendErrorCode/captchaRequired`` carries it in its context (see
/// ``LayerError/captchaChallenge``), where a recovery handler finds it, shows the question and
/// sends the answer with the challenge's identifier. Neither is a secret: the identifier only
/// names a challenge that the answer, not the identifier, unlocks.
public struct CaptchaChallenge: Hashable, Sendable {
    /// The identifier to send back with the answer.
    public var id: String
    /// What to show: the question's text or the address of its image, when the backend sent one.
    public var question: String?

    public init(id: String, question: String? = nil) {
        self.id = id
        self.question = question
    }
}
