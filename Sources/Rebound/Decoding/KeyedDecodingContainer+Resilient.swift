/// How a model's `@Resilient` properties are decoded.
///
/// A synthesized `init(from:)` decodes a wrapped property with `container.decode(Resilient<…>.self,
/// forKey:)`; these overloads are more specific than the standard one, so they are chosen, and
/// they get the key, which is what lets a missing key be an outcome rather than an error. A
/// hand-written `init(from:)` can call them the same way.
///
/// Each overload first does what the plain property would (`decodeIfPresent`, or the array loop of
/// `Array.init(from:)`) and looks closer only when that fails, so a decode that succeeds costs
/// about what it costs without the wrapper. None of them throws, except for a
/// ``ResilientRawRepresentable`` without a fallback, which has nothing to recover with.
extension KeyedDecodingContainer {
    /// An optional: `nil` when the key is missing, the value is `null`, or the value cannot be decoded.
    public func decode<Wrapped: Decodable>(
        _ type: Resilient<Wrapped?>.Type,
        forKey key: Key
    ) throws -> Resilient<Wrapped?> {
        do {
            if let value = try decodeIfPresentDirectly(Wrapped.self, forKey: key) { return Resilient(value) }
            return Resilient(nil, record: contains(key) ? .valueWasNil : .keyNotFound)
        } catch {
            return Resilient(nil, record: recovering(from: error, decoding: Wrapped.self, forKey: key))
        }
    }

    /// An array: empty when the key is missing, the value is `null` or not an array; elements that
    /// cannot be decoded are left out.
    public func decode<Element: Decodable>(
        _ type: Resilient<[Element]>.Type,
        forKey key: Key
    ) throws -> Resilient<[Element]> {
        let (elements, record) = resilientElements(Element.self, forKey: key)
        return Resilient(elements, record: record)
    }

    /// An optional array: `nil` when the key is missing or the value is `null`, empty when it is not
    /// an array; elements that cannot be decoded are left out.
    public func decode<Element: Decodable>(
        _ type: Resilient<[Element]?>.Type,
        forKey key: Key
    ) throws -> Resilient<[Element]?> {
        let (elements, record) = resilientElements(Element.self, forKey: key)
        switch record {
        case .keyNotFound, .valueWasNil: return Resilient(nil, record: record)
        default: return Resilient(elements, record: record)
        }
    }

    /// A dictionary: empty when the key is missing, the value is `null` or not an object; values
    /// that cannot be decoded are left out.
    public func decode<Value: Decodable>(
        _ type: Resilient<[String: Value]>.Type,
        forKey key: Key
    ) throws -> Resilient<[String: Value]> {
        let (values, record) = resilientValues(Value.self, forKey: key)
        return Resilient(values, record: record)
    }

    /// An optional dictionary: `nil` when the key is missing or the value is `null`, empty when it
    /// is not an object; values that cannot be decoded are left out.
    public func decode<Value: Decodable>(
        _ type: Resilient<[String: Value]?>.Type,
        forKey key: Key
    ) throws -> Resilient<[String: Value]?> {
        let (values, record) = resilientValues(Value.self, forKey: key)
        switch record {
        case .keyNotFound, .valueWasNil: return Resilient(nil, record: record)
        default: return Resilient(values, record: record)
        }
    }

    /// A raw-value type with a fallback: the fallback when the key is missing, the value is `null`,
    /// unknown or malformed.
    ///
    /// - Throws: What the plain property would throw, when the type has no
    ///   ``ResilientRawRepresentable/decodingFallback``.
    public func decode<Representable: ResilientRawRepresentable>(
        _ type: Resilient<Representable>.Type,
        forKey key: Key
    ) throws -> Resilient<Representable> {
        guard let fallback = Representable.decodingFallback else {
            return Resilient(try decode(Representable.self, forKey: key))
        }
        do {
            if let value = try decodeIfPresent(Representable.self, forKey: key) { return Resilient(value) }
            return Resilient(fallback, record: contains(key) ? .valueWasNil : .keyNotFound)
        } catch {
            return Resilient(fallback, record: recovering(from: error, decoding: Representable.self, forKey: key))
        }
    }

    // MARK: - Scalars

    /// `decodeIfPresent(type, forKey:)` through the container's own method for the standard
    /// scalars.
    ///
    /// Inside a generic function, `decodeIfPresent(Wrapped.self, …)` calls the container's generic
    /// method even when `Wrapped` is `Int`, and a decoder's generic path is slower for a scalar
    /// than its `Int` method (`JSONDecoder` checks for its special types, then goes
    /// through `Int.init(from:)`). A synthesized `init(from:)` calls the `Int` method; this keeps
    /// a resilient `Int?` as fast as a plain one. Comparing metatypes is a pointer comparison.
    @inline(__always)
    private func decodeIfPresentDirectly<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        func direct<Scalar>(_ value: Scalar?) -> T? { unsafeBitCast(value, to: T?.self) }
        if T.self == String.self { return direct(try decodeIfPresent(String.self, forKey: key)) }
        if T.self == Int.self { return direct(try decodeIfPresent(Int.self, forKey: key)) }
        if T.self == Double.self { return direct(try decodeIfPresent(Double.self, forKey: key)) }
        if T.self == Bool.self { return direct(try decodeIfPresent(Bool.self, forKey: key)) }
        if T.self == Float.self { return direct(try decodeIfPresent(Float.self, forKey: key)) }
        if T.self == Int64.self { return direct(try decodeIfPresent(Int64.self, forKey: key)) }
        if T.self == Int32.self { return direct(try decodeIfPresent(Int32.self, forKey: key)) }
        if T.self == UInt.self { return direct(try decodeIfPresent(UInt.self, forKey: key)) }
        if T.self == UInt64.self { return direct(try decodeIfPresent(UInt64.self, forKey: key)) }
        if T.self == UInt32.self { return direct(try decodeIfPresent(UInt32.self, forKey: key)) }
        return try decodeIfPresent(type, forKey: key)
    }

    // MARK: - The failure path

    /// Records a property's failure and says how it recovered. Runs only when decoding failed.
    private func recovering<T>(from error: any Error, decoding type: T.Type, forKey key: Key) -> ResilientRecord {
        // A decoder at the value: the collector is in its user info, and an unknown raw value is
        // read through it.
        let decoder = try? superDecoder(forKey: key)
        return .recovering(from: error, decoding: type, in: decoder, at: decoder?.codingPath ?? codingPath + [key])
    }

    private func resilientElements<Element: Decodable>(
        _ type: Element.Type,
        forKey key: Key
    ) -> ([Element], ResilientRecord) {
        var container: any UnkeyedDecodingContainer
        do {
            container = try nestedUnkeyedContainer(forKey: key)
        } catch {
            if !contains(key) { return ([], .keyNotFound) }
            if (try? decodeNil(forKey: key)) == true { return ([], .valueWasNil) }
            return ([], recovering(from: error, decoding: [Element].self, forKey: key))
        }
        return [Element].resilientElements(from: &container) { try? superDecoder(forKey: key) }
    }

    private func resilientValues<Value: Decodable>(
        _ type: Value.Type,
        forKey key: Key
    ) -> ([String: Value], ResilientRecord) {
        do {
            guard let attempts = try decodeIfPresent([String: ElementAttempt<Value>].self, forKey: key) else {
                return ([:], contains(key) ? .valueWasNil : .keyNotFound)
            }
            return [String: Value].resilientValues(from: attempts)
        } catch {
            return ([:], recovering(from: error, decoding: [String: Value].self, forKey: key))
        }
    }
}
