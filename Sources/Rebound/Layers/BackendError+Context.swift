extension LayerError where Code == BackendErrorCode {
    /// The backend's own code string, kept whether or not this client knows it.
    public var backendCode: String? { context[BackendErrorContextKey.backendCode]?.revealed }

    /// The backend's own reason string, kept whether or not this client knows it.
    public var backendReason: String? { context[BackendErrorContextKey.backendReason]?.revealed }

    /// The field the backend rejected, such as `"price"`.
    public var field: String? { context[BackendErrorContextKey.field]?.revealed }

    /// The captcha to solve before the request can go through, if the backend sent one.
    public var captchaChallenge: CaptchaChallenge? {
        get {
            guard let id = context[BackendErrorContextKey.captchaID]?.revealed else { return nil }
            return CaptchaChallenge(id: id, question: context[BackendErrorContextKey.captchaQuestion]?.revealed)
        }
        set {
            context[BackendErrorContextKey.captchaID] = newValue.map { ErrorContext.Value($0.id) }
            context[BackendErrorContextKey.captchaQuestion] = newValue?.question.map { ErrorContext.Value($0) }
        }
    }
}
