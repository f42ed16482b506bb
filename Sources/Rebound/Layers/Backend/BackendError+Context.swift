extension LayerError where Code == BackendErrorCode {
    /// The backend's own code string, kept whether or not this client knows it.
    public var backendCode: String? { context[BackendErrorContextKey.backendCode]?.revealed }

    /// The backend's own reason string, kept whether or not this client knows it.
    public var backendReason: String? { context[BackendErrorContextKey.backendReason]?.revealed }

    /// The field the backend rejected, such as `"price"`.
    public var field: String? { context[BackendErrorContextKey.field]?.revealed }

    /// The captcha to solve before the request can go through, if the backend sent one.
    ///
    /// The challenge is kept as the backend sent it, as an attachment, for the solver and the
    /// verifier; the context, which every rendering and report shows, gets its identifier and
    /// question screened (``BackendErrorContextKey/captchaID``,
    /// ``BackendErrorContextKey/captchaQuestion``). An error that has only those context keys
    /// (written by a parser of its own) gives the challenge read from them.
    public var captchaChallenge: CaptchaChallenge? {
        get {
            if let challenge = attachment(CaptchaChallenge.self) { return challenge }
            guard let id = context[BackendErrorContextKey.captchaID]?.revealed else { return nil }
            return CaptchaChallenge(id: id, question: context[BackendErrorContextKey.captchaQuestion]?.revealed)
        }
        set {
            attachments.removeAll { $0 is CaptchaChallenge }
            if let newValue { attachments.append(newValue) }
            context[BackendErrorContextKey.captchaID] = newValue.map { ErrorContext.Value($0.screenedID) }
            context[BackendErrorContextKey.captchaQuestion] = newValue?.screenedQuestion.map { ErrorContext.Value($0) }
        }
    }
}
