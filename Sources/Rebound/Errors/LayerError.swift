/// An error of one layer: a stable code, the cause from the layer below, a reason, debug context and
/// where it was created.
///
/// Declare a layer by its codes (see ``ErrorCode``) and name the error type with a type alias:
///
/// ```swift
/// typealias APIError = LayerError<APIErrorCode>
///
/// throw APIError(.getTokenFailed, cause: networkError, context: ["endpoint": "/v1/token"])
/// ```
public struct LayerError<Code: ErrorCode>: LayeredError, Sendable {
    /// The stable code of this failure within its layer.
    public var code: Code
    /// A detail of the code in another code set, such as which validation failed.
    public var nested: NestedCode?
    /// The error from the layer below that caused this one, if any.
    public var cause: (any Error)? {
        get { causeBox?.error }
        set { causeBox = newValue.map(CauseBox.init) }
    }
    public var reason: String?
    public var context: ErrorContext
    public var location: SourceLocation
    /// Typed values for code, such as the recovery pipeline's attempt history.
    public var attachments: [any ErrorAttachment] = []
    /// `cause`, boxed so that a long chain is freed without one stack frame per level.
    private(set) var causeBox: CauseBox?

    /// Creates an error of this layer.
    ///
    /// - Parameters:
    ///   - code: What failed, in this layer's terms.
    ///   - nested: A detail of `code` in another code set, if there is one.
    ///   - cause: The error from the layer below, if one caused this.
    ///   - reason: Why, in words for developers.
    ///   - context: Debug context; mark secrets with ``ErrorContext/Value/sensitive(_:)``.
    ///   - fileID: Where the error is created; leave the default.
    ///   - line: Where the error is created; leave the default.
    public init(
        _ code: Code,
        nested: NestedCode? = nil,
        cause: (any Error)? = nil,
        reason: String? = nil,
        context: ErrorContext = ErrorContext(),
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.nested = nested
        self.causeBox = cause.map(CauseBox.init)
        self.reason = reason
        self.context = context
        self.location = SourceLocation(fileID: fileID, line: line)
    }

    public var domain: String { Code.domain }
    public var shortName: String { Code.shortName }
    public var codeValue: Int { code.rawValue }
    public var codeName: String { code.name }
}

extension LayerError: CauseBoxCarrying {}

extension LayerError: CustomReflectable {
    /// The stored values as a debugger and `dump` show them, with the cause in its place rather
    /// than in its box.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "code": code, "nested": nested as Any, "cause": cause as Any, "reason": reason as Any,
                "context": context, "location": location, "attachments": attachments,
            ],
            displayStyle: .struct
        )
    }
}

extension LayerError: CustomStringConvertible {
    /// `Domain.code(Nested.code) (reason) [key: value, …]`, with sensitive values redacted.
    public var description: String {
        var text = "\(Code.domain).\(code.name)"
        if let nested { text += "(\(nested))" }
        if let reason { text += " (\(reason))" }
        if !context.isEmpty {
            text += " [" + context.redacted.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
        }
        return text
    }
}
