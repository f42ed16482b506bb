import Foundation
import Rebound
import Testing

/// What a resilient model keeps of its wrapped types: encoding, equality, hashing, and building
/// values in code.
@Suite struct ResilientConformanceTests {
    private struct Resilient6: Codable, Hashable, Sendable {
        @Resilient var id: Int?
        @Resilient var tags: [String] = []
        @Resilient var scores: [String: Double]
        @Resilient var status: ChoreStatus
        @Resilient var note: String?
        @Resilient var aliases: [String]?
    }

    private struct Plain6: Codable, Hashable {
        var id: Int?
        var tags: [String]
        var scores: [String: Double]
        var status: ChoreStatus
        var note: String?
        var aliases: [String]?
    }

    private static func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func aModelEncodesExactlyAsWithoutTheWrapper() throws {
        let resilient = Resilient6(
            id: 7, tags: ["a"], scores: ["x": 1.5], status: .done, note: nil, aliases: ["b"])
        let plain = Plain6(id: 7, tags: ["a"], scores: ["x": 1.5], status: .done, note: nil, aliases: ["b"])
        let json = try Self.encoded(resilient)
        #expect(json == (try Self.encoded(plain)))
        #expect(!json.contains("note"))
    }

    @Test func anEncodedModelDecodesBackEqual() throws {
        let original = Resilient6(
            id: nil, tags: ["a", "b"], scores: [:], status: .open, note: "n", aliases: nil)
        let decoded = try JSONDecoder().decode(Resilient6.self, from: JSONEncoder().encode(original))
        #expect(decoded == original)
        #expect(decoded.$tags.outcome.kind == .decoded)
        #expect(decoded.$id.outcome.kind == .keyNotFound)
    }

    @Test func aRecoveredModelEncodesWhatItKept() throws {
        let decoded = try decode(Resilient6.self, #"{"id": "x", "tags": ["a", 1], "scores": {}, "status": "new"}"#)
        let json = try Self.encoded(decoded)
        #expect(json == #"{"scores":{},"status":"unknown","tags":["a"]}"#)
    }

    @Test func equalityComparesValuesNotHowTheyWereDecoded() throws {
        let recovered = try decode(Resilient6.self, #"{"tags": ["a", 2], "scores": {}, "status": "open"}"#)
        let clean = try decode(Resilient6.self, #"{"tags": ["a"], "scores": {}, "status": "open"}"#)
        #expect(recovered.$tags.outcome.kind == .recoveredFrom)
        #expect(recovered == clean)
        let other = try decode(Resilient6.self, #"{"tags": ["b"], "scores": {}, "status": "open"}"#)
        #expect(recovered != other)
        #expect(Resilient(wrappedValue: 3) == Resilient(wrappedValue: 3))
        #expect(Resilient(wrappedValue: 3) != Resilient(wrappedValue: 4))
    }

    @Test func hashingAgreesWithEquality() throws {
        let recovered = try decode(Resilient6.self, #"{"tags": ["a", 2], "scores": {}, "status": "open"}"#)
        let clean = try decode(Resilient6.self, #"{"tags": ["a"], "scores": {}, "status": "open"}"#)
        let other = try decode(Resilient6.self, #"{"tags": [], "scores": {}, "status": "open"}"#)
        #expect(recovered.hashValue == clean.hashValue)
        #expect(Set([recovered, clean, other]).count == 2)
    }

    @Test func aModelIsBuiltInCodeWithItsMemberwiseInitializer() {
        let model = Resilient6(id: 1, scores: ["a": 2], status: .open, note: nil, aliases: nil)
        #expect(model.tags == [])
        #expect(model.id == 1)
        #expect(model.$tags.outcome.kind == .decoded)
        #expect(model.$id.errors.isEmpty)
        #expect(successes(model.$tags.results).isEmpty)
    }

    @Test func aValueBuiltInCodeCanBeChanged() {
        var model = Resilient6(id: nil, scores: [:], status: .open, note: nil, aliases: nil)
        model.tags.append("new")
        model.id = 3
        #expect(model.tags == ["new"])
        #expect(model.id == 3)
        #expect(successes(model.$tags.results) == ["new"])
    }

    @Test func aResilientModelIsSendable() async throws {
        let model = try decode(Resilient6.self, #"{"tags": ["a"], "scores": {}, "status": "open"}"#)
        let tags = await Task.detached { model.tags }.value
        #expect(tags == ["a"])
    }
}
