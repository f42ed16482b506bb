/// Which validation a backend's ``BackendErrorCode/validationFailure`` was about.
///
/// Not a layer of its own but a code set that is nested inside a ``BackendError`` link, as
/// `BackendError.validationFailure(ValidationError.valueOutOfBounds)`: the short chain stays
/// `BE30`, and the full chain and reports still say what exactly was wrong with the input. The raw
/// values are stable identities: they never change and a retired one is never reused.
public enum ValidationErrorCode: Int, ErrorCode, CaseIterable {
    public static let domain = "ValidationError"
    public static let shortName = "VA"

    /// A number, date or count is outside the allowed range.
    case valueOutOfBounds = 1
    /// A required value is missing or empty.
    case missingValue = 2
    /// A value does not have the required format (an e-mail address, a phone number, a date).
    case invalidFormat = 3
    /// A value is longer than allowed.
    case tooLong = 4
    /// A value is shorter than allowed.
    case tooShort = 5
    /// A value must be unique and is already taken (a login name, an e-mail address).
    case notUnique = 6
    /// The request has a field the backend does not know.
    case unknownField = 7
    /// A value has the wrong type (a string where a number belongs).
    case invalidType = 8
    /// A value is not one of the allowed choices.
    case invalidChoice = 9
}
