/// How one resilient property was decoded, as stored next to its value.
///
/// Every case with details is `indirect`, so the record is one word: a decode that succeeds
/// stores a tag and allocates nothing; details are boxed only for what failed.
enum ResilientRecord: Sendable {
    case decoded
    case keyNotFound
    case valueWasNil
    /// The property's value could not be decoded; the error was recovered from.
    indirect case recovered(any Error)
    /// The value is unknown to a non-frozen ``ResilientRawRepresentable``: expected, not an error.
    indirect case unknownValue(rawValue: String, error: any Error)
    /// Some elements of a collection could not be decoded and were left out: the first
    /// ``DroppedElement/maximumKept``, and how many more were only counted.
    indirect case droppedElements([DroppedElement], omitted: Int)

    /// The record of a collection after its elements were decoded.
    static func elements(_ dropped: [DroppedElement], omitted: Int = 0) -> ResilientRecord {
        dropped.isEmpty && omitted == 0 ? .decoded : .droppedElements(dropped, omitted: omitted)
    }

    /// The public view of the record.
    var outcome: ResilientOutcome {
        switch self {
        case .decoded: return .decoded
        case .keyNotFound: return .keyNotFound
        case .valueWasNil: return .valueWasNil
        case .recovered(let error): return .recoveredFrom(error)
        case .unknownValue(let rawValue, _): return .unknownValue(rawValue)
        case .droppedElements(let dropped, let omitted):
            let errors = dropped.filter { !$0.isExpected }.map(\.error)
            // Past the limit, what failed is not looked at: it counts as failed.
            if !errors.isEmpty || omitted > 0 {
                return .recoveredFrom(DroppedElementsError(errors: errors, omittedCount: omitted))
            }
            // Only expected unknown values were left out: not an error, but not everything either.
            return dropped.first?.unknownRawValue.map(ResilientOutcome.unknownValue) ?? .decoded
        }
    }

    /// Every error recovered from, expected unknown values left out.
    var errors: [any Error] {
        switch self {
        case .decoded, .keyNotFound, .valueWasNil, .unknownValue: return []
        case .recovered(let error): return [error]
        case .droppedElements(let dropped, _): return dropped.filter { !$0.isExpected }.map(\.error)
        }
    }
}

/// One element of a resilient collection that could not be decoded and was left out.
struct DroppedElement: Sendable {
    /// The most dropped elements one collection keeps with their errors; the rest are counted.
    static let maximumKept = 1_000

    /// Where the element was in its collection.
    enum Position: Sendable {
        case index(Int)
        case key(String)
    }

    var position: Position
    var error: any Error
    /// The element's raw value, screened, if it is a value a non-frozen
    /// ``ResilientRawRepresentable`` does not know yet; `nil` for an element that failed.
    var unknownRawValue: String?

    /// Whether the element is a value a non-frozen ``ResilientRawRepresentable`` does not know yet.
    var isExpected: Bool { unknownRawValue != nil }
}

extension ResilientRecord {
    /// Records a recovered failure in the decode's collector, if it has one, and says how the
    /// property recovered.
    ///
    /// - Parameters:
    ///   - error: The error decoding threw.
    ///   - type: The type that failed to decode, to tell an unknown raw value from a malformed one.
    ///   - decoder: A decoder at the failed value: where the collector and the raw value are read.
    ///   - location: The coding path of the failed value.
    static func recovering<T>(
        from error: any Error,
        decoding type: T.Type,
        in decoder: (any Decoder)?,
        at location: [any CodingKey]
    ) -> ResilientRecord {
        let failure = RecoveredFailure(error, decoding: type, in: decoder, at: location)
        if failure.isExpected, let unknown = failure.unknownValue {
            return .unknownValue(rawValue: unknown.rawValue, error: error)
        }
        return .recovered(error)
    }
}

extension DroppedElement {
    /// Records an element's failure in the decode's collector, if it has one, and describes it.
    static func recovering<T>(
        from error: any Error,
        decoding type: T.Type,
        in decoder: (any Decoder)?,
        at location: [any CodingKey],
        position: Position
    ) -> DroppedElement {
        let failure = RecoveredFailure(error, decoding: type, in: decoder, at: location)
        let unknownRawValue = failure.isExpected ? failure.unknownValue?.rawValue : nil
        return DroppedElement(position: position, error: error, unknownRawValue: unknownRawValue)
    }
}

/// A failure a resilient property recovered from, classified and recorded.
struct RecoveredFailure {
    var error: any Error
    var unknownValue: UnknownRawValue?

    /// An unknown value of a non-frozen type: expected, not an error.
    var isExpected: Bool { unknownValue.map { !$0.isFrozen } ?? false }

    /// Classifies the failure and records it in the collector of `decoder`'s user info, if any.
    init<T>(_ error: any Error, decoding type: T.Type, in decoder: (any Decoder)?, at location: [any CodingKey]) {
        self.error = error
        self.unknownValue = decoder.flatMap { UnknownRawValue.inspecting(type, in: $0) }
        if let collector = decoder?.resilientDecodingCollector {
            collector.record(ResilientDecodingDigest.Entry(error: error, at: location, unknownValue: unknownValue))
        }
    }
}
