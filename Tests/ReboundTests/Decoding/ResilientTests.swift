import Foundation
import Rebound
import Testing

/// The behaviours of `@Resilient` on optionals, arrays and dictionaries, item by item as the
/// resilient-decoding README lists them.
@Suite struct ResilientTests {
    // MARK: - The introduction's example

    private struct Foo: Decodable {
        @Resilient var array: [Int]
        @Resilient var value: Int?
    }

    @Test func theIntroductionsExampleKeepsTheGoodPartsAndSaysWhatFailed() throws {
        let foo = try decode(Foo.self, #"{"array": [1, "2", 3], "value": "invalid"}"#)
        #expect(foo.array == [1, 3])
        #expect(foo.value == nil)
        #expect(successes(foo.$array.results) == [1, nil, 3])
        #expect(decodingCase(foo.$array.errors.first) == "typeMismatch")
        #expect(decodingCase(foo.$value.error) == "typeMismatch")
    }

    // MARK: - Optional

    private struct OptionalModel: Decodable {
        @Resilient var count: Int?
        @Resilient var owner: Owner?

        struct Owner: Decodable, Equatable {
            var name: String
        }
    }

    @Test func anOptionalDecodesAGoodValue() throws {
        let model = try decode(OptionalModel.self, #"{"count": 4, "owner": {"name": "Ada"}}"#)
        #expect(model.count == 4)
        #expect(model.owner == OptionalModel.Owner(name: "Ada"))
        #expect(model.$count.outcome.kind == .decoded)
        #expect(model.$count.error == nil)
    }

    @Test func anOptionalIsNilAfterABadValueInsteadOfThrowing() throws {
        let model = try decode(OptionalModel.self, #"{"count": "four", "owner": {"name": 7}}"#)
        #expect(model.count == nil)
        #expect(model.owner == nil)
        #expect(model.$count.outcome.kind == .recoveredFrom)
        #expect(decodingCase(model.$count.error) == "typeMismatch")
        #expect(decodingCase(model.$owner.error) == "typeMismatch")
    }

    @Test func anOptionalIsNilWithoutAnErrorWhenItsKeyIsMissingOrItsValueIsNull() throws {
        let missing = try decode(OptionalModel.self, "{}")
        #expect(missing.count == nil)
        #expect(missing.$count.outcome.kind == .keyNotFound)
        #expect(missing.$count.errors.isEmpty)

        let null = try decode(OptionalModel.self, #"{"count": null, "owner": null}"#)
        #expect(null.count == nil)
        #expect(null.$count.outcome.kind == .valueWasNil)
        #expect(null.$owner.outcome.kind == .valueWasNil)
        #expect(null.$count.errors.isEmpty)
    }

    // MARK: - Array

    private struct ArrayModel: Decodable {
        @Resilient var numbers: [Int]
        @Resilient var optionalNumbers: [Int]?
    }

    @Test func anArrayDecodesValidInputWithoutErrors() throws {
        let model = try decode(ArrayModel.self, #"{"numbers": [1, 2, 3], "optionalNumbers": [4, 5, 6]}"#)
        #expect(model.numbers == [1, 2, 3])
        #expect(model.optionalNumbers == [4, 5, 6])
        #expect(model.$numbers.outcome.kind == .decoded)
        #expect(model.$optionalNumbers.outcome.kind == .decoded)
        #expect(model.$numbers.errors.isEmpty)
    }

    @Test func aMissingArrayIsEmptyAndAMissingOptionalArrayIsNil() throws {
        let model = try decode(ArrayModel.self, "{}")
        #expect(model.numbers == [])
        #expect(model.optionalNumbers == nil)
        #expect(model.$numbers.outcome.kind == .keyNotFound)
        #expect(model.$optionalNumbers.outcome.kind == .keyNotFound)
        #expect(model.$numbers.errors.isEmpty)
        #expect(model.$optionalNumbers.errors.isEmpty)
    }

    @Test func aNullArrayIsEmptyAndANullOptionalArrayIsNil() throws {
        let model = try decode(ArrayModel.self, #"{"numbers": null, "optionalNumbers": null}"#)
        #expect(model.numbers == [])
        #expect(model.optionalNumbers == nil)
        #expect(model.$numbers.outcome.kind == .valueWasNil)
        #expect(model.$optionalNumbers.outcome.kind == .valueWasNil)
        #expect(model.$numbers.errors.isEmpty)
    }

    @Test func anArrayOfTheWrongShapeIsEmptyWithOneError() throws {
        let model = try decode(ArrayModel.self, #"{"numbers": 1, "optionalNumbers": "many"}"#)
        #expect(model.numbers == [])
        #expect(model.optionalNumbers == [])
        #expect(model.$numbers.outcome.kind == .recoveredFrom)
        #expect(model.$numbers.errors.count == 1)
        #expect(successes(model.$numbers.results) == [nil])
        #expect(model.$optionalNumbers.outcome.kind == .recoveredFrom)
        #expect(successes(model.$optionalNumbers.results) == [nil])
    }

    @Test func anArrayLeavesOutTheElementsThatFail() throws {
        let model = try decode(
            ArrayModel.self,
            #"{"numbers": [1, "2", 3, "4", 5], "optionalNumbers": ["1", 2, "3", "4", 5]}"#
        )
        #expect(model.numbers == [1, 3, 5])
        #expect(model.optionalNumbers == [2, 5])
        #expect(model.$numbers.errors.count == 2)
        #expect(model.$optionalNumbers.errors.count == 3)
        #expect(successes(model.$numbers.results) == [1, nil, 3, nil, 5])
        #expect(successes(model.$optionalNumbers.results) == [nil, 2, nil, nil, 5])
        let dropped = try #require(model.$numbers.error as? DroppedElementsError)
        #expect(dropped.errors.count == 2)
    }

    @Test func anOptionalArrayWhoseElementsAllFailIsEmptyNotNil() throws {
        let model = try decode(ArrayModel.self, #"{"numbers": ["a"], "optionalNumbers": ["b", {}]}"#)
        #expect(model.numbers == [])
        #expect(model.optionalNumbers == [])
        #expect(model.$optionalNumbers.errors.count == 2)
    }

    @Test func anArrayLeavesOutAnObjectElementWithABadField() throws {
        struct Model: Decodable {
            @Resilient var chores: [Chore]
        }
        let model = try decode(
            Model.self,
            #"{"chores": [{"id": 1, "title": "a", "reward": 1}, {"id": 2, "title": [], "reward": 2}, {"id": 3, "title": "c", "reward": 3}]}"#
        )
        #expect(model.chores.map(\.id) == [1, 3])
        #expect(successes(model.$chores.results).map { $0?.id } == [1, nil, 3])
    }

    // MARK: - Dictionary

    private struct DictionaryModel: Decodable {
        @Resilient var scores: [String: Int]
        @Resilient var optionalScores: [String: Int]?
    }

    @Test func aDictionaryDecodesValidInputWithoutErrors() throws {
        let model = try decode(DictionaryModel.self, #"{"scores": {"a": 1, "b": 2}, "optionalScores": {"c": 3}}"#)
        #expect(model.scores == ["a": 1, "b": 2])
        #expect(model.optionalScores == ["c": 3])
        #expect(model.$scores.outcome.kind == .decoded)
        #expect(model.$scores.errors.isEmpty)
    }

    @Test func aMissingDictionaryIsEmptyAndAMissingOptionalDictionaryIsNil() throws {
        let model = try decode(DictionaryModel.self, "{}")
        #expect(model.scores == [:])
        #expect(model.optionalScores == nil)
        #expect(model.$scores.outcome.kind == .keyNotFound)
        #expect(model.$optionalScores.outcome.kind == .keyNotFound)
    }

    @Test func aNullDictionaryIsEmptyAndANullOptionalDictionaryIsNil() throws {
        let model = try decode(DictionaryModel.self, #"{"scores": null, "optionalScores": null}"#)
        #expect(model.scores == [:])
        #expect(model.optionalScores == nil)
        #expect(model.$scores.outcome.kind == .valueWasNil)
        #expect(model.$optionalScores.outcome.kind == .valueWasNil)
    }

    @Test func aDictionaryOfTheWrongShapeIsEmptyWithOneError() throws {
        let model = try decode(DictionaryModel.self, #"{"scores": [1], "optionalScores": 2}"#)
        #expect(model.scores == [:])
        #expect(model.optionalScores == [:])
        #expect(model.$scores.outcome.kind == .recoveredFrom)
        #expect(model.$scores.errors.count == 1)
        #expect(model.$optionalScores.errors.count == 1)
    }

    @Test func aDictionaryLeavesOutTheValuesThatFail() throws {
        let model = try decode(
            DictionaryModel.self,
            #"{"scores": {"a": 1, "b": "two", "c": 3}, "optionalScores": {"d": null, "e": 5}}"#
        )
        #expect(model.scores == ["a": 1, "c": 3])
        #expect(model.optionalScores == ["e": 5])
        #expect(model.$scores.errors.count == 1)
        let results = model.$scores.results
        #expect(results.count == 3)
        #expect(try results["a"]?.get() == 1)
        guard case .failure(let error) = results["b"] else {
            Issue.record("expected a failure for b, got \(String(describing: results["b"]))")
            return
        }
        #expect(decodingCase(error) == "typeMismatch")
        #expect(decodingCase(model.$optionalScores.errors.first) == "valueNotFound")
    }

    @Test func aDictionarysKeysFollowTheSameRulesAsAPlainDictionarys() throws {
        struct Plain: Decodable { var someScores: [String: Int] }
        struct Wrapped: Decodable { @Resilient var someScores: [String: Int] }
        let json = Data(#"{"some_scores": {"first_key": 1, "secondKey": 2}}"#.utf8)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let plain = try decoder.decode(Plain.self, from: json)
        let wrapped = try decoder.decode(Wrapped.self, from: json)
        #expect(wrapped.someScores == plain.someScores)
        #expect(wrapped.someScores.count == 2)
    }

    // MARK: - Without a key

    @Test func aResilientArrayDecodesAtTheTopLevel() throws {
        let numbers = try decode(Resilient<[Int]>.self, #"[1, "x", 3]"#)
        #expect(numbers.wrappedValue == [1, 3])
        #expect(successes(numbers.projectedValue.results) == [1, nil, 3])

        let optional = try decode(Resilient<[Int]?>.self, "null")
        #expect(optional.wrappedValue == nil)
        #expect(optional.projectedValue.outcome.kind == .valueWasNil)

        let leftOut = try decode(Resilient<[Int]?>.self, #"[1, "x"]"#)
        #expect(leftOut.wrappedValue == [1])
        #expect(leftOut.projectedValue.errors.count == 1)
    }

    @Test func resilientOptionalsDecodeInsideAnArray() throws {
        let values = try decode([Resilient<Int?>].self, #"[1, "x", null]"#)
        #expect(values.map(\.wrappedValue) == [1, nil, nil])
        #expect(values.map(\.projectedValue.outcome.kind) == [.decoded, .recoveredFrom, .valueWasNil])
    }

    @Test func aResilientDictionaryDecodesAtTheTopLevel() throws {
        let scores = try decode(Resilient<[String: Int]>.self, #"{"a": 1, "b": false}"#)
        #expect(scores.wrappedValue == ["a": 1])
        #expect(scores.projectedValue.errors.count == 1)
    }

    // MARK: - Nested models

    private struct Project: Decodable {
        var name: String
        var lead: Person
        @Resilient var members: [Person]

        struct Person: Decodable, Equatable {
            var name: String
            @Resilient var email: String?
        }
    }

    @Test func nestedModelsRecoverAtEveryLevel() throws {
        let (project, digest) = try decodeWithDigest(
            Project.self,
            #"""
            {"name": "Rebound", "lead": {"name": "Ada", "email": 42},
             "members": [{"name": "Bo", "email": "bo@example.com"}, {"email": "x"}, {"name": "Cy", "email": []}]}
            """#
        )
        #expect(project.lead.name == "Ada")
        #expect(project.lead.email == nil)
        #expect(project.lead.$email.outcome.kind == .recoveredFrom)
        #expect(project.members.map(\.name) == ["Bo", "Cy"])
        #expect(project.members.map(\.email) == ["bo@example.com", nil])
        #expect(digest.errors.map(\.path) == ["lead.email", "members[1].name", "members[2].email"])
    }
}
