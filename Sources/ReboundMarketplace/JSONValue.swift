internal import Foundation

/// Any JSON value, for reading request bodies field by field and for mangling response bodies.
///
/// Request bodies are read this way rather than through `Decodable` types so that each field can be
/// judged on its own: a missing `answer` is `missing_value`, an `answer` that is a number is
/// `invalid_format`, and the error names the field.
enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value parsed from `bytes`, or `nil` if they are not JSON.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The value as a number, if it is one.
    var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The value with its numbers and booleans replaced by words: what a backend with a type bug sends.
    ///
    /// In an object, a number under a key that ends in `id` becomes `"seven"`, any other number
    /// `"lots"`, a boolean `"yes"`. In a list, only one element is mangled (the second, or the only
    /// one), so a client that decodes elements one by one can keep the others.
    func mangled() -> JSONValue {
        switch self {
        case .object(let fields):
            var result: [String: JSONValue] = [:]
            for (key, value) in fields {
                switch value {
                case .int, .double: result[key] = .string(key.lowercased().hasSuffix("id") ? "seven" : "lots")
                case .bool: result[key] = .string("yes")
                default: result[key] = value
                }
            }
            return .object(result)
        case .array(var elements):
            guard !elements.isEmpty else { return self }
            let index = min(1, elements.count - 1)
            elements[index] = elements[index].mangled()
            return .array(elements)
        default:
            return self
        }
    }
}
