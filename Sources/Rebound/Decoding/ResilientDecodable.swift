/// A type a ``Resilient`` property can hold: an optional, a string-keyed dictionary, an array, or
/// a ``ResilientRawRepresentable``.
///
/// The conformances are what keep `@Resilient var id: Int` from compiling: there is nothing to
/// recover an `Int` with, so the wrapper would only hide a failure. A model's properties are
/// decoded by the `KeyedDecodingContainer` overloads, which handle a missing key; this requirement
/// serves the rarer places without a key, such as a resilient value at the top level.
public protocol ResilientDecodable {
    /// Decodes a resilient value from `decoder`, recovering from what it can.
    ///
    /// - Throws: Only when there is nothing to recover with, such as a ``ResilientRawRepresentable``
    ///   without a fallback.
    static func resilientlyDecoded(from decoder: any Decoder) throws -> Resilient<Self>
}

extension Optional: ResilientDecodable where Wrapped: Decodable {
    public static func resilientlyDecoded(from decoder: any Decoder) throws -> Resilient<Wrapped?> {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { return Resilient(nil, record: .valueWasNil) }
        // An optional collection leaves out bad elements as the collection itself does.
        if let collection = Wrapped.self as? any ResilientCollectionDecoding.Type {
            let (value, record) = Self.collection(collection, from: decoder)
            return Resilient(value as? Wrapped, record: record)
        }
        do {
            return Resilient(try container.decode(Wrapped.self))
        } catch {
            return Resilient(
                nil, record: .recovering(from: error, decoding: Wrapped.self, in: decoder, at: decoder.codingPath))
        }
    }

    private static func collection<Collection: ResilientCollectionDecoding>(
        _ type: Collection.Type,
        from decoder: any Decoder
    ) -> (Any, ResilientRecord) {
        let (value, record) = Collection.resilientCollection(from: decoder)
        return (value, record)
    }
}

extension Array: ResilientDecodable where Element: Decodable {
    public static func resilientlyDecoded(from decoder: any Decoder) throws -> Resilient<[Element]> {
        let (elements, record) = resilientCollection(from: decoder)
        return Resilient(elements, record: record)
    }
}

extension Dictionary: ResilientDecodable where Key == String, Value: Decodable {
    public static func resilientlyDecoded(from decoder: any Decoder) throws -> Resilient<[String: Value]> {
        let (values, record) = resilientCollection(from: decoder)
        return Resilient(values, record: record)
    }
}
