import Foundation
import Rebound

/// Any JSON decoded resiliently into a model with every wrapper `@Resilient` has, and strictly
/// into its twin without them.
///
/// Contract: any JSON object decodes (every property can recover); what decodes strictly decodes
/// resiliently to the same values with nothing recovered from; a collection's inspection has one
/// result per element kept or left out; the digest's errors become chain links under a code.
enum ResilientDecodingFuzzing {
    struct Item: Codable, Hashable, Sendable {
        var id: Int
        var name: String?
    }

    enum Kind: String, Codable, Hashable, Sendable, ResilientRawRepresentable {
        case open, done, unknown
        static var decodingFallback: Kind? { .unknown }
    }

    enum Currency: String, Codable, Hashable, Sendable, ResilientRawRepresentable {
        case eur = "EUR"
        case usd = "USD"
        case none = ""
        static var decodingFallback: Currency? { Currency.none }
        static var isFrozen: Bool { true }
    }

    /// Every shape of `Resilient`'s table.
    struct Model: Decodable {
        @Resilient var item: Item?
        @Resilient var items: [Item]
        @Resilient var maybeItems: [Item]?
        @Resilient var table: [String: Item]
        @Resilient var maybeTable: [String: Int]?
        @Resilient var kind: Kind
        @Resilient var maybeKind: Kind?
        @Resilient var kinds: [Kind]
        @Resilient var currency: Currency
    }

    /// The same fields, decoded strictly.
    struct StrictModel: Decodable {
        var item: Item?
        var items: [Item]?
        var maybeItems: [Item]?
        var table: [String: Item]?
        var maybeTable: [String: Int]?
        var kind: Kind?
        var maybeKind: Kind?
        var kinds: [Kind]?
        var currency: Currency?
    }

    enum FuzzCode: Int, ErrorCode {
        static let domain = "FuzzError"
        static let shortName = "FZ"
        case decodeFailed = 1
    }

    static func violations(_ input: [UInt8]) -> [String] {
        let data = Data(input)
        let isObject = (try? JSONSerialization.jsonObject(with: data)) is [String: Any]
        let model: Model
        let digest: ResilientDecodingDigest
        do {
            (model, digest) = try ResilientDecoding.decode(Model.self, from: data)
        } catch {
            return isObject ? ["a JSON object failed to decode: \(ErrorChain(error).short)"] : []
        }
        var violations: [String] = []
        if let strict = try? JSONDecoder().decode(StrictModel.self, from: data) {
            if !digest.isEmpty {
                violations.append("decoded strictly, yet recovered from \(digest.entries.map(\.description))")
            }
            let same =
                model.item == strict.item && model.items == (strict.items ?? [])
                && model.maybeItems == strict.maybeItems && model.table == (strict.table ?? [:])
                && model.maybeTable == strict.maybeTable && model.kind == (strict.kind ?? .unknown)
                && model.maybeKind == strict.maybeKind && model.kinds == (strict.kinds ?? [])
                && model.currency == (strict.currency ?? .none)
            if !same { violations.append("the resilient values differ from the strict ones") }
        }
        let kept = model.$items.results.count { if case .success = $0 { true } else { false } }
        if kept != model.items.count {
            violations.append("\(model.items.count) items, \(kept) results kept")
        }
        let keptValues = model.$table.results.values.count { if case .success = $0 { true } else { false } }
        if keptValues != model.table.count {
            violations.append("\(model.table.count) table values, \(keptValues) results kept")
        }
        let links = digest.errors(under: FuzzCode.decodeFailed)
        if links.count != digest.errors.count {
            violations.append("\(digest.errors.count) errors became \(links.count) links")
        }
        _ = links.map { ErrorChain($0).short } + digest.entries.map(\.description)
        return violations
    }
}
