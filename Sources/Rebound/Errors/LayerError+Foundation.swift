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
    ///
    /// The cause is under `NSUnderlyingErrorKey`, its own cause under that, and so on, as deep as
    /// ``ErrorChain`` goes (``ErrorChain/maximumDepth`` errors in all, this one included), so that
    /// bridging costs no more than the chain does.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [:]
        info[NSLocalizedDescriptionKey] = errorDescription
        if let cause { info[NSUnderlyingErrorKey] = Self.bridgedCauses(from: cause) }
        return info
    }

    /// `cause` and the causes below it as a chain of `NSError`s, built bottom up without recursion.
    ///
    /// Bridging a layer error with `as NSError` asks for its ``errorUserInfo``, which would bridge
    /// its cause in turn: on Linux that is done at once, so a chain of ten thousand errors ran the
    /// presenter ten thousand times and overflowed a small thread stack. Layer errors are bridged
    /// here one by one instead, at most to the depth of ``ErrorChain``; an error of another kind
    /// ends the walk and is bridged as Foundation bridges it.
    private static func bridgedCauses(from cause: any Error) -> NSError {
        let limit = ErrorChain.maximumDepth - 1
        var layers: [any FoundationBridgedLayer] = []
        var next: (any Error)? = cause
        while let layer = next as? any FoundationBridgedLayer, layers.count < limit {
            layers.append(layer)
            next = layer.cause
        }
        guard let top = layers.first else { return cause as NSError }
        // What lies below the depth limit is left out, as ErrorChain leaves it out.
        var underlying = layers.count < limit ? next.map { $0 as NSError } : nil
        for layer in layers.dropFirst().reversed() {
            underlying = layer.bridged(underlying: underlying)
        }
        return top.bridged(underlying: underlying)
    }
}

/// A layer error that can be bridged to `NSError` with a cause that was bridged already.
private protocol FoundationBridgedLayer: Error {
    /// The error of the layer below, not yet bridged.
    var cause: (any Error)? { get }
    /// This error as an `NSError` whose underlying error is `underlying`.
    func bridged(underlying: NSError?) -> NSError
}

extension LayerError: FoundationBridgedLayer {
    fileprivate func bridged(underlying: NSError?) -> NSError {
        var info: [String: Any] = [:]
        info[NSLocalizedDescriptionKey] = errorDescription
        info[NSUnderlyingErrorKey] = underlying
        return NSError(domain: Self.errorDomain, code: errorCode, userInfo: info)
    }
}
