/// A code inside a code: the detail of a layer's failure in another code set.
///
/// A backend's validation failure says *which* validation failed:
/// `BackendError.validationFailure(ValidationError.valueOutOfBounds)`. The nested code is part of
/// the link in the full chain and in JSON; the short chain names the outer code only (`BE30`), so
/// that the code a person reads out to support stays short.
public struct NestedCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The nested code set's type name, such as `"ValidationError"`.
    public var domain: String
    /// The nested code set's short name, such as `"VA"`.
    public var shortName: String
    /// The nested code's stable number.
    public var code: Int
    /// The nested code's name, such as `"valueOutOfBounds"`.
    public var codeName: String

    init(domain: String, shortName: String, code: Int, codeName: String) {
        self.domain = domain
        self.shortName = shortName
        self.code = code
        self.codeName = codeName
    }

    /// A reference to `code`.
    public init<Code: ErrorCode>(_ code: Code) {
        self.init(domain: Code.domain, shortName: Code.shortName, code: code.rawValue, codeName: code.name)
    }

    /// Whether this refers to `code`.
    public func matches<Code: ErrorCode>(_ code: Code) -> Bool {
        domain == Code.domain && self.code == code.rawValue
    }

    /// `ValidationError.valueOutOfBounds`.
    public var description: String { "\(domain).\(codeName)" }
}
