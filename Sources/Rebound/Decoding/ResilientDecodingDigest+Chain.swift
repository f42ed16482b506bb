extension ResilientDecodingDigest.Entry {
    /// The recovery as a JSON-layer error: the code matching the `DecodingError` (a model's own
    /// error is ``JSONErrorCode/dataCorrupted``), the error as its cause, and the coding path in
    /// its context under `codingPath`.
    ///
    /// ```swift
    /// entry.jsonError.chain.short     // "JS1-DE1"
    /// ```
    public func jsonError(fileID: String = #fileID, line: Int = #line) -> JSONError {
        var error: JSONError
        if let decoding = self.error as? DecodingError {
            error = JSONError(decoding: decoding, fileID: fileID, line: line)
        } else {
            error = JSONError(
                .dataCorrupted,
                cause: self.error,
                reason: "The model rejected the value at \(path.isEmpty ? Self.topLevel : path).",
                fileID: fileID,
                line: line
            )
        }
        if !path.isEmpty { error.context[JSONError.codingPathKey] = ErrorContext.Value(path) }
        return error
    }
}

extension ResilientDecodingDigest {
    /// The context key that marks a recovered failure's outer link, with the value `true`.
    static var recoveredContextKey: String { "recovered" }

    /// The errors to report, each as the chain it would have had if it had failed the call, under
    /// `code`: `AP8-JS1-DE1` for a string where `tasks[3].price` belongs.
    ///
    /// Each error is `LayerError(code, cause: JSONError(…, cause: the DecodingError))`, with the
    /// coding path in the JSON link's context. The short chain is the one the same failure would
    /// have had if it had failed the call, so monitoring puts both kinds of damage from one schema
    /// change side by side; the outer link's reason and its context entry
    /// `recovered: true` tell a recovered failure from a fatal one. Expected unknown values are
    /// not included.
    ///
    /// ```swift
    /// let (tasks, digest) = try ResilientDecoding.decode([Task].self, from: body)
    /// for error in digest.errors(under: APIErrorCode.listTasksFailed) { reporter.record(error) }
    /// ```
    ///
    /// - Parameters:
    ///   - code: The code of the call whose response was decoded, such as the endpoint's.
    ///   - context: More debug context for the outer link, such as the endpoint.
    ///   - fileID: Where the error is created; leave the default.
    ///   - line: Where the error is created; leave the default.
    /// - Returns: One error per entry of ``errors``, in order.
    public func errors<Code: ErrorCode>(
        under code: Code,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line
    ) -> [LayerError<Code>] {
        var context = context
        context[Self.recoveredContextKey] = "true"
        return errors.map { entry in
            let path = entry.path.isEmpty ? Entry.topLevel : entry.path
            return LayerError(
                code,
                cause: entry.jsonError(fileID: fileID, line: line),
                reason: "Recovered from a partial decoding failure at \(path).",
                context: context,
                fileID: fileID,
                line: line
            )
        }
    }
}
