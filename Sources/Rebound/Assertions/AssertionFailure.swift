/// A failed non-fatal assertion: its message, code, context and where it failed.
public struct AssertionFailure: Hashable, Sendable, CustomStringConvertible {
    /// What should have held, in words for developers.
    public var message: String
    /// The assertion's code, which groups its reports.
    public var code: AssertionErrorCode
    /// Debug context about the situation; mark secrets with ``ErrorContext/Value/sensitive(_:)``.
    public var context: ErrorContext
    /// The file (`#fileID`) of the assertion.
    public var fileID: String
    /// The line of the assertion.
    public var line: Int
    /// The function of the assertion.
    public var function: String

    init(
        message: String,
        code: AssertionErrorCode = .unspecified,
        context: ErrorContext = ErrorContext(),
        fileID: String,
        line: Int,
        function: String
    ) {
        self.message = message
        self.code = code
        self.context = context
        self.fileID = fileID
        self.line = line
        self.function = function
    }

    /// The failure as an error of the `AS` layer, created where the assertion failed.
    public var error: AssertionError {
        AssertionError(code, reason: message.isEmpty ? nil : message, fileID: fileID, line: line)
    }

    /// `Assertion failed: <message> [AS<code>] at <file>:<line> in <function>`.
    public var description: String {
        let text = message.isEmpty ? "" : " \(message)"
        return
            "Assertion failed:\(text) [\(AssertionErrorCode.shortName)\(code.rawValue)] at \(fileID):\(line) in \(function)"
    }
}
