extension LayerError {
    /// Creates an error of this layer whose code has a detail in another code set.
    ///
    /// ```swift
    /// BackendError(.validationFailure, nested: ValidationErrorCode.valueOutOfBounds)
    /// ```
    public init<Nested: ErrorCode>(
        _ code: Code,
        nested: Nested,
        cause: (any Error)? = nil,
        reason: String? = nil,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.init(
            code,
            nested: NestedCode(nested),
            cause: cause,
            reason: reason,
            context: context,
            fileID: fileID,
            line: line
        )
    }

    /// Runs `body` and wraps any error it throws into this layer's error with `code`.
    ///
    /// Typed throws does not convert errors by itself; this makes the conversion at a layer's
    /// boundary one expression, and keeps `do`/`catch` out of the layer's code:
    ///
    /// ```swift
    /// func token() async throws(APIError) -> Token {
    ///     let response = try await APIError.wrap(.getTokenFailed) {
    ///         try await transport.send(request)
    ///     }
    ///     …
    /// }
    /// ```
    ///
    /// The wrapping error records where `wrap` was called, not where the cause was thrown.
    ///
    /// - Throws: `LayerError(code, cause: error)` when `body` throws `error`.
    public static func wrap<Success, Failure: Error>(
        _ code: Code,
        reason: String? = nil,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line,
        _ body: () async throws(Failure) -> Success
    ) async throws(LayerError) -> Success {
        do {
            return try await body()
        } catch {
            throw LayerError(code, cause: error, reason: reason, context: context, fileID: fileID, line: line)
        }
    }

    /// Runs `body` and wraps any error it throws into this layer's error with `code`.
    ///
    /// The synchronous form of the asynchronous `wrap`, for synchronous work.
    public static func wrap<Success, Failure: Error>(
        _ code: Code,
        reason: String? = nil,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line,
        _ body: () throws(Failure) -> Success
    ) throws(LayerError) -> Success {
        do {
            return try body()
        } catch {
            throw LayerError(code, cause: error, reason: reason, context: context, fileID: fileID, line: line)
        }
    }
}

extension Result {
    /// Wraps a failure into the layer error with `code`, keeping the failure as its cause.
    public func wrapError<Code: ErrorCode>(
        _ code: Code,
        reason: String? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> Result<Success, LayerError<Code>> {
        mapError { LayerError(code, cause: $0, reason: reason, fileID: fileID, line: line) }
    }
}
