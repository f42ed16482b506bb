/// A captcha the backend asks a person to solve before it goes on with a request.
///
/// A ``BackendError`` with ``BackendErrorCode/captchaRequired`` carries it (see
/// ``LayerError/captchaChallenge``), where a recovery handler finds it, shows the question and
/// sends the answer with the challenge's identifier.
///
/// Both come from the server and are kept as it sent them, since the solver needs the real
/// question and the verifier the real identifier. But a question may be a signed image address
/// whose token opens the image to anyone who has it, and an identifier may be a token of the
/// backend's own, so wherever a challenge is rendered (its description, `dump`, an error's context,
/// chain and reports) both are screened like any other server text: bounded, and with what looks
/// like a credential or an e-mail address replaced by `<redacted>`.
///
/// ```
/// CaptchaChallenge(id: c-81, question: https://captcha.example.com/c-81.png?sig=<redacted>)
/// ```
public struct CaptchaChallenge: Hashable, Sendable, ErrorAttachment {
    /// The identifier to send back with the answer.
    public var id: String
    /// What to show: the question's text or the address of its image, when the backend sent one.
    public var question: String?

    public init(id: String, question: String? = nil) {
        self.id = id
        self.question = question
    }

    /// The identifier as it may be rendered: bounded and screened.
    var screenedID: String { UntrustedText.identifier(id) }

    /// The question as it may be rendered: bounded and screened.
    var screenedQuestion: String? { question.map(UntrustedText.message) }
}

extension CaptchaChallenge: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `CaptchaChallenge(id: …, question: …)`, both screened.
    public var description: String {
        "CaptchaChallenge(id: \(screenedID), question: \(screenedQuestion ?? "nil"))"
    }

    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the screened values, never the stored ones.
    public var customMirror: Mirror {
        Mirror(self, children: ["id": screenedID, "question": screenedQuestion as Any], displayStyle: .struct)
    }
}
