/// An error that belongs to a layer and may wrap the error of the layer below as its cause.
///
/// ``LayerError`` is the ready-made conformance; the protocol is what chain code reads, so that a
/// chain can be walked whatever the concrete layer types in it.
public protocol LayeredError: Error {
    /// The layer's error type name, such as `"NetworkError"`.
    var domain: String { get }
    /// The layer's two-letter short name, such as `"NE"`.
    var shortName: String { get }
    /// The stable numeric code.
    var codeValue: Int { get }
    /// The code's name, such as `"timeout"`.
    var codeName: String { get }
    /// A detail of the code in another code set, if any.
    var nested: NestedCode? { get }
    /// The error of the layer below that caused this one, if any.
    var cause: (any Error)? { get }
    /// Why it failed, in words for developers (never shown to people as is).
    var reason: String? { get }
    /// Debug context; sensitive values are redacted in every rendering.
    var context: ErrorContext { get }
    /// Where the error was created.
    var location: SourceLocation { get }
}
