import Foundation
import Testing

@testable import Rebound

/// The projected value: outcome, error, errors and results, and the scalar types decoded through
/// the decoder's own methods.
@Suite struct ResilientInspectionTests {
    private struct Numbers: Decodable {
        @Resilient var values: [Int]
    }

    @Test func resultsPlaceFailuresAtTheStartAndTheEndWhereTheyWere() throws {
        let model = try decode(Numbers.self, #"{"values": ["a", 1, "b", "c", 2, "d"]}"#)
        #expect(successes(model.$values.results) == [nil, 1, nil, nil, 2, nil])
        #expect(model.$values.errors.count == 4)
    }

    @Test func aCollectionsErrorListsItsDroppedElements() throws {
        let model = try decode(Numbers.self, #"{"values": [1, "a", "b"]}"#)
        let error = try #require(model.$values.error as? DroppedElementsError)
        #expect(error.errors.count == 2)
        #expect(error.description == "2 elements could not be decoded and were left out.")
        #expect(DroppedElementsError(errors: [error]).description == "1 element could not be decoded and was left out.")
        #expect(model.$values.outcome.error is DroppedElementsError)
    }

    @Test func eachErrorOfACollectionCarriesTheElementsPath() throws {
        let model = try decode(Numbers.self, #"{"values": [1, "a"]}"#)
        let error = try #require(model.$values.errors.first as? DecodingError)
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("expected a type mismatch, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["values", "Index 1"])
    }

    @Test func anOutcomeWithoutAnErrorHasNone() {
        #expect(ResilientOutcome.decoded.error == nil)
        #expect(ResilientOutcome.keyNotFound.error == nil)
        #expect(ResilientOutcome.unknownValue("x").error == nil)
        #expect(ResilientOutcome.recoveredFrom(CancellationError()).error is CancellationError)
    }

    @Test func aDictionaryOfTheWrongShapeHasNoResultsButAnError() throws {
        struct Model: Decodable { @Resilient var scores: [String: Int]? }
        let model = try decode(Model.self, #"{"scores": "none"}"#)
        #expect(model.$scores.results.isEmpty)
        #expect(model.$scores.errors.count == 1)
    }

    // MARK: - Scalars

    private struct Scalars: Decodable {
        @Resilient var string: String?
        @Resilient var int: Int?
        @Resilient var double: Double?
        @Resilient var bool: Bool?
        @Resilient var float: Float?
        @Resilient var int64: Int64?
        @Resilient var int32: Int32?
        @Resilient var uint: UInt?
        @Resilient var uint64: UInt64?
        @Resilient var uint32: UInt32?
        @Resilient var int8: Int8?
        @Resilient var strings: [String]
        @Resilient var ints: [Int]
        @Resilient var doubles: [Double]
        @Resilient var bools: [Bool]
        @Resilient var uint8s: [UInt8]
    }

    @Test func everyScalarTypeDecodesItsValue() throws {
        let model = try decode(
            Scalars.self,
            #"""
            {"string": "s", "int": -3, "double": 2.5, "bool": true, "float": 1.5, "int64": -9000000000,
             "int32": -7, "uint": 8, "uint64": 9000000000, "uint32": 9, "int8": -2,
             "strings": ["a", "b"], "ints": [1, 2], "doubles": [0.5], "bools": [false, true], "uint8s": [255]}
            """#
        )
        #expect(model.string == "s")
        #expect(model.int == -3)
        #expect(model.double == 2.5)
        #expect(model.bool == true)
        #expect(model.float == 1.5)
        #expect(model.int64 == -9_000_000_000)
        #expect(model.int32 == -7)
        #expect(model.uint == 8)
        #expect(model.uint64 == 9_000_000_000)
        #expect(model.uint32 == 9)
        #expect(model.int8 == -2)
        #expect(model.strings == ["a", "b"])
        #expect(model.ints == [1, 2])
        #expect(model.doubles == [0.5])
        #expect(model.bools == [false, true])
        #expect(model.uint8s == [255])
    }

    @Test func everyScalarTypeRecoversFromABadValue() throws {
        let (model, digest) = try decodeWithDigest(
            Scalars.self,
            #"""
            {"string": 1, "int": 1.5, "double": "d", "bool": "yes", "float": [], "int64": {}, "int32": 9000000000,
             "uint": -1, "uint64": "u", "uint32": true, "int8": 300,
             "strings": [1, "b"], "ints": ["1", 2], "doubles": [null, 0.5], "bools": [0, true], "uint8s": [256, 1]}
            """#
        )
        let optionals: [Any?] = [
            model.string, model.int, model.double, model.bool, model.float, model.int64, model.int32, model.uint,
            model.uint64, model.uint32, model.int8,
        ]
        #expect(optionals.allSatisfy { $0 == nil })
        #expect(model.strings == ["b"])
        #expect(model.ints == [2])
        #expect(model.doubles == [0.5])
        #expect(model.bools == [true])
        #expect(model.uint8s == [1])
        #expect(digest.errors.count == 16)
    }
}
