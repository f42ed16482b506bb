/// A raw-value type, usually an enum, that says how a resilient property recovers from a raw value
/// it does not know.
///
/// Servers add cases; an app in people's hands cannot be updated at the same moment. A type that
/// adopts this protocol declares what to use instead (``decodingFallback``) and whether a new raw
/// value is an error (``isFrozen``):
///
/// ```swift
/// enum TaskStatus: String, ResilientRawRepresentable {
///     case open, done, unknown
///     static var decodingFallback: TaskStatus? { .unknown }
/// }
///
/// struct Task: Decodable {
///     @Resilient var status: TaskStatus       // "archived" decodes as .unknown, silently
/// }
/// ```
///
/// | | not frozen (the default) | frozen |
/// |---|---|---|
/// | an unknown raw value | expected: the fallback, outcome ``ResilientOutcome/unknownValue(_:)``, not reported | an error: the fallback, outcome ``ResilientOutcome/recoveredFrom(_:)``, reported |
/// | a raw value of the wrong type (a number for a `String` enum) | an error, reported | an error, reported |
///
/// Without a fallback, the type is resilient as an optional (`@Resilient var status: TaskStatus?`,
/// `nil` instead of the fallback) and in collections; a non-optional `@Resilient` property of it
/// decodes as strictly as it would without the wrapper. In arrays and dictionaries an unknown value
/// is always left out, never replaced by the fallback, so that a list does not fill with
/// placeholders.
///
/// The protocol changes nothing outside `@Resilient` properties.
public protocol ResilientRawRepresentable: RawRepresentable, Decodable, ResilientDecodable
where RawValue: Decodable {
    /// What a non-optional resilient property holds when its value cannot be decoded, or `nil` if
    /// there is nothing sensible. The default is `nil`.
    static var decodingFallback: Self? { get }

    /// Whether every raw value the server can send is known, so that an unknown one is an error.
    ///
    /// The default is `false`: a type describing a server's vocabulary grows, and an older app
    /// seeing a newer value is expected. Make a type frozen when a new value means a real
    /// disagreement, such as a currency code the app cannot price in.
    static var isFrozen: Bool { get }
}

extension ResilientRawRepresentable {
    public static var decodingFallback: Self? { nil }
    public static var isFrozen: Bool { false }

    /// Decodes a value where no key is involved, with the fallback.
    public static func resilientlyDecoded(from decoder: any Decoder) throws -> Resilient<Self> {
        let container = try decoder.singleValueContainer()
        guard let fallback = decodingFallback else { return Resilient(try container.decode(Self.self)) }
        if container.decodeNil() { return Resilient(fallback, record: .valueWasNil) }
        do {
            return Resilient(try container.decode(Self.self))
        } catch {
            return Resilient(
                fallback, record: .recovering(from: error, decoding: Self.self, in: decoder, at: decoder.codingPath))
        }
    }

    /// The raw value in `decoder` if it is one of the right type that this type does not know.
    ///
    /// Runs on the failure path only, to tell an unknown value from a malformed one.
    static func unknownRawValue(in decoder: any Decoder) -> UnknownRawValue? {
        guard let container = try? decoder.singleValueContainer(),
            let rawValue = try? container.decode(RawValue.self),
            Self(rawValue: rawValue) == nil
        else { return nil }
        return UnknownRawValue(
            rawValue: UntrustedText.identifier(String(describing: rawValue)),
            typeName: String(describing: Self.self),
            isFrozen: isFrozen
        )
    }
}

/// A raw value that a ``ResilientRawRepresentable`` type does not know.
struct UnknownRawValue: Sendable {
    /// The raw value's description, bounded and screened: it comes from the server.
    var rawValue: String
    var typeName: String
    var isFrozen: Bool

    /// The raw value in `decoder` if `type` is a ``ResilientRawRepresentable`` that does not know it.
    static func inspecting<T>(_ type: T.Type, in decoder: any Decoder) -> UnknownRawValue? {
        guard let representable = type as? any ResilientRawRepresentable.Type else { return nil }
        return representable.unknownRawValue(in: decoder)
    }
}
