/// The `reason` of a `validation_failure`: what is wrong with the field named in `field`.
///
/// The strings are the ones Rebound's `JSONBackendErrorParser` maps by default. They never change.
public enum MockErrorReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// A number is outside the range the field allows.
    case valueOutOfBounds = "value_out_of_bounds"
    /// A required field is absent or empty.
    case missingValue = "missing_value"
    /// A field has the wrong type or shape, or the body is not JSON.
    case invalidFormat = "invalid_format"
    /// A text is longer than the field allows.
    case tooLong = "too_long"
    /// A text is shorter than the field allows.
    case tooShort = "too_short"
}
