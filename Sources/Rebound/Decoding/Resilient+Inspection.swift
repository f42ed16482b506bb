extension Resilient {
    /// How one resilient property was decoded: the projected value, `model.$property`.
    ///
    /// ```swift
    /// let list = try JSONDecoder().decode(TaskList.self, from: body)   // {"tags": ["a", 2, "c"]}
    /// list.tags                                   // ["a", "c"]
    /// list.$tags.outcome                          // .recoveredFrom(DroppedElementsError)
    /// list.$tags.errors                           // [DecodingError.typeMismatch at tags[1]]
    /// list.$tags.results                          // [.success("a"), .failure(…), .success("c")]
    /// ```
    ///
    /// It is available in every build, and built only when asked for: decoding keeps a one-word
    /// record, not an inspection.
    public struct Inspection {
        let value: Value
        let record: ResilientRecord

        /// How the property was decoded.
        public var outcome: ResilientOutcome { record.outcome }

        /// The error the property recovered from, if it recovered from one.
        ///
        /// For a collection whose elements were left out, a ``DroppedElementsError``; their own
        /// errors are in ``errors``. An unknown value of a non-frozen type is not an error.
        public var error: (any Error)? { outcome.error }

        /// Every error the property recovered from: the property's own, or one per element left out.
        public var errors: [any Error] { record.errors }
    }
}

extension Resilient.Inspection: Sendable where Value: Sendable {}

extension Resilient.Inspection where Value: _ResilientArray {
    /// One result per element of the input, in order: the elements kept, and the errors of those
    /// left out where they were. Past 1,000 elements left out, the rest are not listed (their
    /// count is the outcome's ``DroppedElementsError/omittedCount``), and the elements kept after
    /// them follow the last one listed.
    ///
    /// A value of the wrong shape (a string where the array belongs) gives a single failure. An
    /// element left out because a non-frozen ``ResilientRawRepresentable`` does not know it yet
    /// appears as a failure too, although it is not among the ``errors``.
    public var results: [Result<Value._ResilientElement, any Error>] {
        let elements = value._resilientElements
        switch record {
        case .recovered(let error):
            return elements.map { .success($0) } + [.failure(error)]
        case .droppedElements(let dropped, _):
            var results: [Result<Value._ResilientElement, any Error>] = []
            results.reserveCapacity(elements.count + dropped.count)
            var kept = elements.makeIterator()
            for element in dropped {
                guard case .index(let index) = element.position else { continue }
                while results.count < index, let next = kept.next() { results.append(.success(next)) }
                results.append(.failure(element.error))
            }
            while let next = kept.next() { results.append(.success(next)) }
            return results
        case .decoded, .keyNotFound, .valueWasNil, .unknownValue:
            return elements.map { .success($0) }
        }
    }
}

extension Resilient.Inspection where Value: _ResilientDictionary {
    /// One result per key of the input: the values kept, and the errors of those left out.
    ///
    /// A value of the wrong shape (a string where the object belongs) has no keys, so its error is
    /// only among the ``errors``.
    public var results: [String: Result<Value._ResilientValue, any Error>] {
        var results = value._resilientValues.mapValues { Result<Value._ResilientValue, any Error>.success($0) }
        if case .droppedElements(let dropped, _) = record {
            for element in dropped {
                if case .key(let key) = element.position { results[key] = .failure(element.error) }
            }
        }
        return results
    }
}

/// An array or an optional array, as a resilient property can hold it.
///
/// Public only so that ``Resilient/Inspection`` can offer `results` for both; not API.
public protocol _ResilientArray {
    associatedtype _ResilientElement
    /// The elements, or none for `nil`.
    var _resilientElements: [_ResilientElement] { get }
}

extension Array: _ResilientArray {
    public var _resilientElements: [Element] { self }
}

extension Optional: _ResilientArray where Wrapped: _ResilientArray {
    public var _resilientElements: [Wrapped._ResilientElement] { self?._resilientElements ?? [] }
}

/// A string-keyed dictionary or an optional one, as a resilient property can hold it.
///
/// Public only so that ``Resilient/Inspection`` can offer `results` for both; not API.
public protocol _ResilientDictionary {
    associatedtype _ResilientValue
    /// The pairs, or none for `nil`.
    var _resilientValues: [String: _ResilientValue] { get }
}

extension Dictionary: _ResilientDictionary where Key == String {
    public var _resilientValues: [String: Value] { self }
}

extension Optional: _ResilientDictionary where Wrapped: _ResilientDictionary {
    public var _resilientValues: [String: Wrapped._ResilientValue] { self?._resilientValues ?? [:] }
}
