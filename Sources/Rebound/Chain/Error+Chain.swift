extension Error {
    /// This error and every cause below it, outermost first (at most ``ErrorChain/maximumDepth``).
    var causalChain: [any Error] {
        var errors: [any Error] = []
        var current: (any Error)? = self
        while let error = current, errors.count < ErrorChain.maximumDepth {
            errors.append(error)
            current = ErrorChain.cause(of: error)
        }
        return errors
    }

    /// The chain of this error as plain values, ready to render, query, log or encode.
    public var chain: ErrorChain { ErrorChain(self) }

    /// The short form of this error's chain, such as `AP8-HT503`: the same text as `chain.short`,
    /// worked out without building the links' reasons and context.
    public var shortChain: String {
        var parts: [String] = []
        walkChain { error, layered in
            if let layered {
                parts.append(layered.shortName + String(layered.codeValue))
            } else {
                parts.append(ErrorChain.Link(foreign: error).short)
            }
            return false
        }
        return parts.joined(separator: "-")
    }

    /// The innermost cause: the error at the bottom of the chain (the error itself if it wraps nothing).
    public var rootCause: any Error { causalChain.last ?? self }

    /// Whether this error or any cause below it has `code`, as its own code or as a nested code.
    ///
    /// Like Go's `errors.Is`: `error.chainContains(NetworkErrorCode.timeout)`.
    public func chainContains<Code: ErrorCode>(_ code: Code) -> Bool {
        walkChain { _, layered in
            guard let layered else { return false }
            return (layered.domain == Code.domain && layered.codeValue == code.rawValue)
                || layered.nested?.matches(code) == true
        }
    }

    /// The outermost error of the layer whose codes are `Code`, if the chain has one.
    ///
    /// Like Go's `errors.As`: `error.firstError(in: NetworkErrorCode.self)?.context["curlCode"]`.
    public func firstError<Code: ErrorCode>(in layer: Code.Type) -> LayerError<Code>? {
        firstError(as: LayerError<Code>.self)
    }

    /// The outermost error of type `type` in the chain, for any error type, foreign ones included.
    public func firstError<Wanted: Error>(as type: Wanted.Type) -> Wanted? {
        var found: Wanted?
        walkChain { error, _ in
            found = error as? Wanted
            return found != nil
        }
        return found
    }

    /// Visits the errors of ``causalChain`` in its order, without building it, until `visit`
    /// returns `true`; returns whether it did.
    ///
    /// Each error is cast to ``LayeredError`` once, for both `visit` and the step to its cause: the
    /// queries above run on every failed attempt, and the cast (a protocol conformance lookup) is
    /// most of their cost.
    @discardableResult
    func walkChain(_ visit: (_ error: any Error, _ layered: (any LayeredError)?) -> Bool) -> Bool {
        var current: (any Error)? = self
        var depth = 0
        while let error = current, depth < ErrorChain.maximumDepth {
            let layered = error as? any LayeredError
            if visit(error, layered) { return true }
            depth += 1
            if let layered {
                current = layered.cause
            } else {
                current = ErrorChain.foreignCause(of: error)
            }
        }
        return false
    }
}
