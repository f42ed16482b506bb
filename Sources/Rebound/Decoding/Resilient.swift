/// A property of a `Decodable` model that survives a bad value in the response instead of failing
/// the whole decode.
///
/// One malformed element should not cost a person the whole list. A `@Resilient` property recovers
/// from what it can and keeps the good part:
///
/// | property | missing key or `null` | a value of the wrong shape | a bad element or value |
/// |---|---|---|---|
/// | `T?` | `nil` | `nil`, error recorded | — |
/// | `[T]` | `[]` | `[]`, error recorded | left out, error recorded |
/// | `[T]?` | `nil` | `[]`, error recorded | left out, error recorded |
/// | `[String: T]` | `[:]` | `[:]`, error recorded | left out, error recorded |
/// | `[String: T]?` | `nil` | `[:]`, error recorded | left out, error recorded |
/// | a ``ResilientRawRepresentable`` with a fallback | the fallback | the fallback, error recorded | — |
///
/// A value a non-frozen ``ResilientRawRepresentable`` does not know yet is expected rather than an
/// error: the property holds the fallback (or `nil`, or the element is left out) and nothing is
/// reported. A missing key or `null` is never an error either: a property marked resilient says that
/// the server may leave it out.
///
/// ```swift
/// struct TaskList: Decodable {
///     @Resilient var tasks: [Task]        // a malformed task is left out
///     @Resilient var nextPage: URL?       // a malformed URL becomes nil
///     @Resilient var sort: SortOrder      // an unknown order becomes SortOrder.decodingFallback
/// }
/// ```
///
/// Every recovery is visible in two places. The property's projected value (`list.$tasks`, a
/// ``Resilient/Inspection``) says how that property was decoded: its ``ResilientOutcome``, its
/// errors and, for collections, the result of each element. A whole decode's recoveries are
/// collected, each with its coding path, into a ``ResilientDecodingDigest`` by
/// ``ResilientDecoding/decode(_:from:decoder:fileID:line:)``, and become JSON-layer links under
/// an endpoint's code with ``ResilientDecodingDigest/errors(under:context:fileID:line:)``. All of
/// it works in release builds.
///
/// Only the shapes in the table can be resilient: `@Resilient var id: Int` does not compile,
/// because there is nothing to recover an `Int` with. Make it `Int?`.
///
/// A resilient property costs one word of storage next to its value and nothing else while
/// decoding succeeds; details are kept only for what failed. Equality, hashing and encoding look at
/// the value alone.
@propertyWrapper
public struct Resilient<Value> {
    /// The decoded value, or what it was recovered with.
    public var wrappedValue: Value

    /// How the value was decoded; `.decoded` for a value built in code.
    let record: ResilientRecord

    /// A value built in code, as if it had been decoded without trouble.
    ///
    /// This is what lets a model with resilient properties be built with its memberwise
    /// initializer, and what `@Resilient var tags: [String] = []` calls.
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
        self.record = .decoded
    }

    init(_ value: Value, record: ResilientRecord = .decoded) {
        self.wrappedValue = value
        self.record = record
    }

    /// How this property was decoded: `model.$tags.outcome`, `model.$tags.errors`, `model.$tags.results`.
    ///
    /// The inspection describes the decoding: after the value is changed in code, it still tells
    /// how the original value was decoded.
    public var projectedValue: Inspection {
        Inspection(value: wrappedValue, record: record)
    }
}

extension Resilient: Decodable where Value: ResilientDecodable {
    /// Decodes a resilient value where no key is involved: at the top level or in an unkeyed
    /// container.
    ///
    /// A model's properties go through the `KeyedDecodingContainer` overloads instead, which are
    /// what make a missing key work.
    public init(from decoder: any Decoder) throws {
        self = try Value.resilientlyDecoded(from: decoder)
    }
}

extension Resilient: Encodable where Value: Encodable {
    /// Encodes the value alone, as the property without the wrapper would be.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension Resilient: Equatable where Value: Equatable {
    /// Compares the values; how they were decoded is not part of equality.
    public static func == (lhs: Resilient, rhs: Resilient) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue
    }
}

extension Resilient: Hashable where Value: Hashable {
    /// Hashes the value alone, consistently with equality.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}

extension Resilient: Sendable where Value: Sendable {}
