/// A collection that decodes resiliently by leaving out the elements that fail.
protocol ResilientCollectionDecoding {
    /// The collection in `decoder`, empty when it is `null` or of the wrong shape.
    static func resilientCollection(from decoder: any Decoder) -> (Self, ResilientRecord)
}

extension Array: ResilientCollectionDecoding where Element: Decodable {
    static func resilientCollection(from decoder: any Decoder) -> ([Element], ResilientRecord) {
        if let container = try? decoder.singleValueContainer(), container.decodeNil() { return ([], .valueWasNil) }
        do {
            var container = try decoder.unkeyedContainer()
            return resilientElements(from: &container) { decoder }
        } catch {
            return ([], .recovering(from: error, decoding: Self.self, in: decoder, at: decoder.codingPath))
        }
    }

    /// Decodes every element of `container`, leaving out those that fail.
    ///
    /// The loop is what `Array.init(from:)` does, plus a `catch` that records the failure and moves
    /// past the element; while nothing fails it costs nothing more.
    ///
    /// - Parameters:
    ///   - container: The array's container.
    ///   - arrayDecoder: A decoder whose user info carries the collector, for when a failed
    ///     element cannot be given a decoder of its own. Called on the failure path only.
    static func resilientElements(
        from container: inout any UnkeyedDecodingContainer,
        arrayDecoder: () -> (any Decoder)?
    ) -> ([Element], ResilientRecord) {
        var elements: [Element] = []
        if let count = container.count { elements.reserveCapacity(count) }
        var dropped: [DroppedElement] = []
        var omitted = 0
        while !container.isAtEnd {
            do {
                elements.append(try container.decodeDirectly(Element.self))
            } catch {
                let index = elements.count + dropped.count + omitted
                // A decoder for the element moves the container past it, and lets the failure be
                // inspected (an unknown raw value?) and recorded with the element's own path.
                let elementDecoder = try? container.superDecoder()
                if container.currentIndex == index { _ = try? container.decode(SkippedValue.self) }
                if dropped.count < DroppedElement.maximumKept {
                    let location = elementDecoder?.codingPath ?? container.codingPath + [ResilientIndexKey(index)]
                    dropped.append(
                        .recovering(
                            from: error,
                            decoding: Element.self,
                            in: elementDecoder ?? arrayDecoder(),
                            at: location,
                            position: .index(index)
                        )
                    )
                } else {
                    omitted += 1
                    (elementDecoder ?? arrayDecoder())?.resilientDecodingCollector?.recordOmitted()
                }
                // A container that cannot move past a value would loop for ever.
                if container.currentIndex == index { break }
            }
        }
        return (elements, .elements(dropped, omitted: omitted))
    }
}

extension Dictionary: ResilientCollectionDecoding where Key == String, Value: Decodable {
    static func resilientCollection(from decoder: any Decoder) -> ([String: Value], ResilientRecord) {
        do {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { return ([:], .valueWasNil) }
            return resilientValues(from: try container.decode([String: ElementAttempt<Value>].self))
        } catch {
            return ([:], .recovering(from: error, decoding: Self.self, in: decoder, at: decoder.codingPath))
        }
    }

    /// The values that decoded, and the record of those that did not.
    ///
    /// Decoding the attempts as a `[String: …]` dictionary keeps the decoder's own rules for
    /// dictionary keys (`JSONDecoder` applies no key strategy to them), exactly as a plain
    /// `[String: Value]` property would.
    static func resilientValues(from attempts: [String: ElementAttempt<Value>]) -> ([String: Value], ResilientRecord) {
        var values: [String: Value] = [:]
        values.reserveCapacity(attempts.count)
        var dropped: [DroppedElement] = []
        for (key, attempt) in attempts {
            switch attempt {
            case .decoded(let value): values.updateValue(value, forKey: key)
            case .dropped(let element): dropped.append(element)
            }
        }
        dropped.sort { lhs, rhs in
            guard case .key(let left) = lhs.position, case .key(let right) = rhs.position else { return false }
            return left < right
        }
        let omitted = Swift.max(0, dropped.count - DroppedElement.maximumKept)
        if omitted > 0 { dropped.removeLast(omitted) }
        return (values, .elements(dropped, omitted: omitted))
    }
}

extension UnkeyedDecodingContainer {
    /// `decode(type)` through the container's own method for the standard scalars, for the reason
    /// `KeyedDecodingContainer`'s resilient overloads do the same.
    @inline(__always)
    mutating func decodeDirectly<T: Decodable>(_ type: T.Type) throws -> T {
        func direct<Scalar>(_ value: Scalar) -> T { unsafeBitCast(value, to: T.self) }
        if T.self == String.self { return direct(try decode(String.self)) }
        if T.self == Int.self { return direct(try decode(Int.self)) }
        if T.self == Double.self { return direct(try decode(Double.self)) }
        if T.self == Bool.self { return direct(try decode(Bool.self)) }
        return try decode(type)
    }
}

/// One value of a resilient dictionary: decoded, or recorded and left out. Decoding it never throws.
enum ElementAttempt<Value: Decodable>: Decodable {
    case decoded(Value)
    case dropped(DroppedElement)

    init(from decoder: any Decoder) {
        do {
            // Through a container, not `Value(from:)`, so that the decoder's strategies (dates,
            // data) apply as they would to a plain property.
            self = .decoded(try decoder.singleValueContainer().decode(Value.self))
        } catch {
            let key = decoder.codingPath.last?.stringValue ?? ""
            self = .dropped(
                .recovering(from: error, decoding: Value.self, in: decoder, at: decoder.codingPath, position: .key(key))
            )
        }
    }
}

/// A value decoded only to move an unkeyed container past it.
struct SkippedValue: Decodable {
    init(from decoder: any Decoder) {}
}

/// The coding key of an array element, rendered `[3]` in paths.
struct ResilientIndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }

    init?(intValue: Int) { self.init(intValue) }

    init?(stringValue: String) { nil }
}
