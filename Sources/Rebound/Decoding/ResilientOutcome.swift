/// How a resilient property was decoded.
///
/// A missing key and a `null` are outcomes rather than errors: for an optional they are the
/// ordinary way of saying "no value", and a property marked resilient says the server may leave it
/// out. Only ``recoveredFrom(_:)`` means that something unexpected was recovered from; it is also
/// what the ``ResilientDecodingDigest`` lists.
///
/// ```swift
/// switch model.$price.outcome {
/// case .decoded, .keyNotFound, .valueWasNil: break
/// case .unknownValue(let rawValue): logger.debug("new price kind \(rawValue)")
/// case .recoveredFrom(let error): logger.warning("price dropped: \(error)")
/// }
/// ```
public enum ResilientOutcome: Sendable {
    /// The value was decoded (or built in code), with nothing left out.
    case decoded
    /// The key was missing; the property holds `nil`, an empty collection or the fallback.
    case keyNotFound
    /// The value was `null`; the property holds `nil`, an empty collection or the fallback.
    case valueWasNil
    /// A non-frozen ``ResilientRawRepresentable`` got a raw value it does not know yet (its
    /// description is the payload); the property holds the fallback or `nil`. This is expected of a
    /// type that is not frozen, so it is not an error and is not reported.
    ///
    /// For a collection, the elements with such values were left out and nothing else failed; the
    /// payload is the first of them, and `results` and the digest list them all. When an element
    /// also failed for another reason, the outcome is ``recoveredFrom(_:)`` with that error.
    case unknownValue(String)
    /// Decoding failed with this error and the property recovered: it holds `nil`, an empty
    /// collection or the fallback. For a collection whose elements were left out, the error is a
    /// ``DroppedElementsError`` listing their errors.
    case recoveredFrom(any Error)

    /// The error recovered from, if the outcome is ``recoveredFrom(_:)``.
    public var error: (any Error)? {
        if case .recoveredFrom(let error) = self { return error }
        return nil
    }
}
