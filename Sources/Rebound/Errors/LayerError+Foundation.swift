public import Foundation

extension LayerError: LocalizedError {
    /// What a person should see, from ``ErrorPresenter/standard``: the message and, when the
    /// failure is not recoverable, the error code. Never the developer's reason or context.
    public var errorDescription: String? {
        let presenter = ErrorPresenter.standard
        return presenter.text(of: presenter.present(self))
    }

    /// The developer's reason, for tools that show it.
    public var failureReason: String? { reason }
}

extension LayerError: CustomNSError {
    /// The layer's domain, so that bridging to `NSError` keeps it.
    public static var errorDomain: String { Code.domain }

    /// The explicit code, so that bridging to `NSError` never falls back to the case index.
    public var errorCode: Int { code.rawValue }

    /// Carries the description explicitly: on Linux, a type that adopts both `CustomNSError` and
    /// `LocalizedError` otherwise shows "The operation could not be completed" in
    /// `localizedDescription`, whatever its `errorDescription` says.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [:]
        info[NSLocalizedDescriptionKey] = errorDescription
        if let cause { info[NSUnderlyingErrorKey] = cause as NSError }
        return info
    }
}
