#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension LayerError where Code == JSONErrorCode {
    /// The context key of the path to the value that failed, such as `tasks[3].price`.
    static var codingPathKey: String { "codingPath" }

    /// The context key of the size of the body that failed to decode, in bytes.
    static var byteCountKey: String { "byteCount" }

    /// Wraps a `DecodingError` as the cause of a JSON error with the matching code.
    ///
    /// The path to the failing value goes into the context (`codingPath`) and the reason,
    /// written as people write it (`tasks[1].price`), because the path is what tells a schema change
    /// from bad data. For a missing key the path ends with the key itself, which `DecodingError`
    /// keeps apart from its path.
    ///
    /// - Parameters:
    ///   - error: The error `JSONDecoder` threw.
    ///   - context: More debug context; the coding path is added after it.
    ///   - fileID: Where the error is created; leave the default.
    ///   - line: Where the error is created; leave the default.
    public init(
        decoding error: DecodingError,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line
    ) {
        let code: JSONErrorCode
        var path: [any CodingKey] = error.decodingContext?.codingPath ?? []
        switch error {
        case .typeMismatch: code = .typeMismatch
        case .valueNotFound: code = .valueNotFound
        case .keyNotFound(let key, _):
            code = .keyNotFound
            path.append(key)
        case .dataCorrupted: code = .dataCorrupted
        @unknown default: code = .dataCorrupted
        }
        let renderedPath = DecodingError.renderedPath(path)
        var context = context
        if !renderedPath.isEmpty { context[Self.codingPathKey] = ErrorContext.Value(renderedPath) }
        let description = error.decodingContext.map { UntrustedText.message($0.debugDescription) }
        let reason = [renderedPath.isEmpty ? nil : renderedPath, description].compactMap { $0 }
            .joined(separator: ": ")
        self.init(
            code,
            cause: error,
            reason: reason.isEmpty ? nil : reason,
            context: context,
            fileID: fileID,
            line: line
        )
    }

    /// Wraps an `EncodingError` as the cause of an ``JSONErrorCode/encodingFailed`` error.
    public init(
        encoding error: EncodingError,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line
    ) {
        var context = context
        var reason: String?
        switch error {
        case .invalidValue(_, let encodingContext):
            let path = DecodingError.renderedPath(encodingContext.codingPath)
            if !path.isEmpty { context[Self.codingPathKey] = ErrorContext.Value(path) }
            reason = [path.isEmpty ? nil : path, UntrustedText.message(encodingContext.debugDescription)]
                .compactMap { $0 }.joined(separator: ": ")
        @unknown default:
            reason = nil
        }
        self.init(.encodingFailed, cause: error, reason: reason, context: context, fileID: fileID, line: line)
    }

    /// Decodes a value from a JSON body, or says precisely why it could not.
    ///
    /// An empty body, a body that is not JSON, JSON nested deeper than the parser reads and JSON of
    /// the wrong shape get different codes (``JSONErrorCode/emptyBody``, ``JSONErrorCode/notJSON``,
    /// ``JSONErrorCode/tooDeeplyNested``, or the `DecodingError` case), because each points at a
    /// different culprit. The body itself is never copied into the error, since it
    /// may hold personal data; only its size is.
    ///
    /// ```swift
    /// let list = try JSONError.decode(TaskList.self, from: response.body)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The JSON body.
    ///   - decoder: The decoder to use, with the strategies the API needs.
    ///   - fileID: Where the error is created; leave the default.
    ///   - line: Where the error is created; leave the default.
    /// - Returns: The decoded value.
    /// - Throws: A ``JSONError`` whose cause is the decoder's error, if there was one.
    public static func decode<T: Decodable>(
        _ type: T.Type,
        from data: Data,
        decoder: JSONDecoder = JSONDecoder(),
        fileID: String = #fileID,
        line: Int = #line
    ) throws(JSONError) -> T {
        let context: ErrorContext = [byteCountKey: "\(data.count)"]
        if data.allSatisfy(isJSONWhitespace) {
            throw JSONError(
                .emptyBody,
                reason: "The body is empty where JSON was expected.",
                context: context,
                fileID: fileID,
                line: line
            )
        }
        do {
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            var jsonError = JSONError(decoding: error, context: context, fileID: fileID, line: line)
            // `JSONDecoder` reports a syntax error as `dataCorrupted` at the root, with no underlying
            // error on Linux, exactly as a model that rejects a valid top-level value; only parsing
            // again tells them apart. It reports JSON nested deeper than it reads the same way, as
            // "not valid JSON". This runs on the failure path only.
            if case .dataCorrupted(let decodingContext) = error, decodingContext.codingPath.isEmpty,
                !JSONNesting.isJSON(data)
            {
                if JSONNesting.isTooDeepForTheParser(data) {
                    jsonError.code = .tooDeeplyNested
                    jsonError.reason =
                        "The body nests arrays or objects more than \(JSONNesting.parserLimit) levels deep, "
                        + "deeper than the JSON parser reads; it was read no further."
                } else {
                    jsonError.code = .notJSON
                }
            }
            throw jsonError
        } catch {
            // A model's `init(from:)` may throw any error of its own: the JSON was readable but its
            // content was not acceptable to the model.
            throw JSONError(
                .dataCorrupted,
                cause: error,
                reason: "The model rejected the decoded value.",
                context: context,
                fileID: fileID,
                line: line
            )
        }
    }

    /// Space, tab, line feed and carriage return: the only bytes JSON allows around a value.
    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Encodes a value as a JSON body.
    ///
    /// - Throws: A ``JSONError`` with ``JSONErrorCode/encodingFailed`` whose cause is the encoder's error.
    public static func encode<T: Encodable>(
        _ value: T,
        encoder: JSONEncoder = JSONEncoder(),
        fileID: String = #fileID,
        line: Int = #line
    ) throws(JSONError) -> Data {
        do {
            return try encoder.encode(value)
        } catch let error as EncodingError {
            throw JSONError(encoding: error, fileID: fileID, line: line)
        } catch {
            throw JSONError(.encodingFailed, cause: error, fileID: fileID, line: line)
        }
    }
}
