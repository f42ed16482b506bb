import Foundation
import Rebound

// Models and helpers shared by the resilient-decoding tests.

/// A task's status: not frozen, with a fallback, as a server's growing vocabulary is.
enum ChoreStatus: String, Codable, Hashable, Sendable, ResilientRawRepresentable {
    case open
    case done
    case unknown

    static var decodingFallback: ChoreStatus? { .unknown }
}

/// A currency: frozen, because an unknown one means the app cannot price, with a fallback.
enum Currency: String, Codable, Hashable, Sendable, ResilientRawRepresentable {
    case eur
    case usd
    case unsupported

    static var decodingFallback: Currency? { .unsupported }
    static var isFrozen: Bool { true }
}

/// A priority with integer raw values, neither frozen nor with a fallback: the protocol's defaults.
enum Priority: Int, Codable, Hashable, Sendable, ResilientRawRepresentable {
    case low = 1
    case high = 2
}

/// A frozen type without a fallback.
enum Unit: String, Codable, Hashable, Sendable, ResilientRawRepresentable {
    case kilogram
    case litre

    static var isFrozen: Bool { true }
}

/// A task as a plain model: any bad field makes it fail.
struct Chore: Codable, Equatable, Sendable {
    var id: Int
    var title: String
    var reward: Double
}

/// A list whose bad tasks are left out.
struct ChoreList: Decodable, Sendable {
    @Resilient var chores: [Chore]
    @Resilient var status: ChoreStatus
}

/// How an outcome can be compared in a test.
enum OutcomeKind: Equatable {
    case decoded
    case keyNotFound
    case valueWasNil
    case unknownValue(String)
    case recoveredFrom
}

extension ResilientOutcome {
    var kind: OutcomeKind {
        switch self {
        case .decoded: .decoded
        case .keyNotFound: .keyNotFound
        case .valueWasNil: .valueWasNil
        case .unknownValue(let rawValue): .unknownValue(rawValue)
        case .recoveredFrom: .recoveredFrom
        }
    }
}

/// Decodes `json` with a plain `JSONDecoder`, as an app would without asking for a digest.
func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(json.utf8))
}

/// Decodes `json` and returns the digest too.
func decodeWithDigest<T: Decodable>(_ type: T.Type, _ json: String) throws -> (T, ResilientDecodingDigest) {
    let (value, digest) = try JSONDecoder().decodeResiliently(type, from: Data(json.utf8))
    return (value, digest)
}

/// The elements of results, `nil` where an element failed.
func successes<Element>(_ results: [Result<Element, any Error>]) -> [Element?] {
    results.map { try? $0.get() }
}

/// The case name of a `DecodingError`, or `nil` for any other error.
func decodingCase(_ error: (any Error)?) -> String? {
    guard let error = error as? DecodingError else { return nil }
    switch error {
    case .typeMismatch: return "typeMismatch"
    case .valueNotFound: return "valueNotFound"
    case .keyNotFound: return "keyNotFound"
    case .dataCorrupted: return "dataCorrupted"
    @unknown default: return "unknown"
    }
}
