import Foundation
import Rebound
import Testing

private struct Task: Codable {
    var title: String
    var price: Int
}

private struct TaskList: Codable {
    var tasks: [Task]
}

/// A model that accepts only even numbers, and says so as models do.
private struct EvenNumber: Decodable {
    var value: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = try container.decode(Int.self)
        guard value.isMultiple(of: 2) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) is odd.")
        }
    }
}

/// A model that fails with an error of its own.
private struct Picky: Decodable {
    struct Refusal: Error {}

    init(from decoder: any Decoder) throws { throw Refusal() }
}

@Suite struct JSONErrorTests {
    private func decodeFailure<T: Decodable>(_ type: T.Type, _ json: String) throws -> JSONError {
        try #require(throws: JSONError.self) { try JSONError.decode(type, from: Data(json.utf8)) }
    }

    @Test func goodJSONDecodes() throws {
        let list = try JSONError.decode(TaskList.self, from: Data(#"{"tasks": [{"title": "a", "price": 3}]}"#.utf8))
        #expect(list.tasks.map(\.price) == [3])
    }

    @Test(arguments: ["", " ", "\n\t\r "])
    func anEmptyBodyIsEmptyBody(json: String) throws {
        let error = try decodeFailure(TaskList.self, json)
        #expect(error.code == .emptyBody)
        #expect(error.cause == nil)
        #expect(error.context["byteCount"]?.revealed == "\(json.utf8.count)")
    }

    @Test(arguments: ["<html><body>Bad Gateway</body></html>", "{\"tasks\": [", "nul", "tasks=3"])
    func aBodyThatIsNotJSONIsNotJSON(json: String) throws {
        let error = try decodeFailure(TaskList.self, json)
        #expect(error.code == .notJSON)
        #expect(error.cause is DecodingError)
    }

    @Test func aMissingKeyIsKeyNotFoundWithThePathToTheKey() throws {
        let error = try decodeFailure(
            TaskList.self,
            #"{"tasks": [{"title": "a", "price": 3}, {"title": "b"}]}"#
        )
        #expect(error.code == .keyNotFound)
        #expect(error.context["codingPath"]?.revealed == "tasks[1].price")
        #expect(error.reason?.hasPrefix("tasks[1].price: ") == true)
        #expect(error.chain.short == "JS3-DE3")
    }

    @Test(arguments: ["alice@example.com", "ya29a0AfH6SMBx3kQz9vLq8R7pN2cD4", String(repeating: "k", count: 100_000)])
    func aServersDictionaryKeyInThePathIsScreenedAndBounded(key: String) throws {
        // The keys of a dictionary are the server's text, like any value: an e-mail address, a
        // token or a megabyte may be one.
        struct Members: Decodable { var members: [String: Int] }
        let error = try decodeFailure(Members.self, #"{"members": {"\#(key)": "x"}}"#)
        let texts = error.chain.links.flatMap { link in [link.reason ?? ""] + link.context.map(\.value) }
        if key.count < UntrustedText.identifierLimit {
            #expect(!texts.contains { $0.contains(key) }, "\(texts)")
        }
        #expect(texts.allSatisfy { $0.count <= 2 * UntrustedText.messageLimit + 10 })
        #expect(error.context["codingPath"]?.revealed.hasPrefix("members.") == true)
    }

    @Test func aValueOfTheWrongTypeIsTypeMismatchWithItsPath() throws {
        let error = try decodeFailure(TaskList.self, #"{"tasks": [{"title": "a", "price": "cheap"}]}"#)
        #expect(error.code == .typeMismatch)
        #expect(error.context["codingPath"]?.revealed == "tasks[0].price")
        #expect(error.chain.full == "JSONError.typeMismatch - DecodingError.typeMismatch")
    }

    @Test func aNullWhereAValueBelongsIsValueNotFound() throws {
        let error = try decodeFailure(TaskList.self, #"{"tasks": [{"title": null, "price": 1}]}"#)
        #expect(error.code == .valueNotFound)
        #expect(error.context["codingPath"]?.revealed == "tasks[0].title")
    }

    @Test func validJSONThatTheModelRejectsIsDataCorruptedNotNotJSON() throws {
        let error = try decodeFailure(EvenNumber.self, "3")
        #expect(error.code == .dataCorrupted)
        #expect(error.reason == "3 is odd.")
    }

    @Test func aModelsOwnErrorIsKeptAsTheCause() throws {
        let error = try decodeFailure(Picky.self, "{}")
        #expect(error.code == .dataCorrupted)
        #expect(error.cause is Picky.Refusal)
    }

    @Test func theBodyIsNeverCopiedIntoTheError() throws {
        let error = try decodeFailure(TaskList.self, #"{"tasks": [{"title": "secret-title-123", "price": "x"}]}"#)
        #expect(!error.description.contains("secret-title-123"))
        #expect(error.context.redacted.map(\.key) == ["byteCount", "codingPath"])
    }

    @Test func aSecretInTheDecodersDescriptionIsRedacted() {
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
        let error = JSONError(
            decoding: .dataCorrupted(.init(codingPath: [], debugDescription: "Token '\(token)' is not valid."))
        )
        #expect(error.reason == "Token '<redacted>' is not valid.")
    }

    @Test(arguments: [10_000, 100_000])
    func validJSONNestedDeeperThanTheParserReadsIsTooDeeplyNestedNotNotJSON(depth: Int) throws {
        let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let error = try decodeFailure([[Int]].self, deep)
        #expect(error.code.rawValue == 8)
        #expect(error.code.name == "tooDeeplyNested")
        #expect(error.chain.short == "JS8-DE4")
        #expect(error.reason?.contains("nest") == true, "\(error.reason ?? "")")
        #expect(error.reason?.contains("not valid JSON") == false, "\(error.reason ?? "")")
        #expect(error.context["byteCount"]?.revealed == "\(2 * depth)")
    }

    @Test(arguments: [
        "<html>" + String(repeating: "[", count: 1_000),
        "[1 2 " + String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_001),
        "{" + String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000) + "}",
    ])
    func aBodyThatBreaksJSONBeforeItNestsTooDeeplyIsStillNotJSON(json: String) throws {
        let error = try decodeFailure([[Int]].self, json)
        #expect(error.code == .notJSON)
    }

    @Test func aDecodingErrorWithoutAPathHasNoPathInItsContext() {
        let error = JSONError(decoding: .dataCorrupted(.init(codingPath: [], debugDescription: "Broken.")))
        #expect(error.code == .dataCorrupted)
        #expect(error.context["codingPath"] == nil)
        #expect(error.reason == "Broken.")
    }

    @Test func aValueThatCannotBeEncodedIsEncodingFailed() throws {
        let error = try #require(throws: JSONError.self) { try JSONError.encode(["price": Double.nan]) }
        #expect(error.code == .encodingFailed)
        #expect(error.cause is EncodingError)
        #expect(error.context["codingPath"]?.revealed == "price")
    }

    /// The encoding error stays as the cause, and its link's reason is screened as any text from
    /// outside Rebound is: an app's `encode(to:)` may word its failure with the value in it.
    @Test func anEncodingFailuresOwnTextIsScreenedInTheChain() throws {
        struct Signed: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(
                    "", .init(codingPath: [], debugDescription: "Cannot sign with key sk9Qz4Lm2Wx7Rt5Vb8Nc3Hd6Jf1Kg0Pq")
                )
            }
        }
        let error = try #require(throws: JSONError.self) { try JSONError.encode(Signed()) }
        #expect(error.cause is EncodingError)
        #expect(error.chain.short == "JS7-EE1", "\(error.chain.short)")
        #expect(!error.chain.debugDescription.contains("sk9Qz4"), "\(error.chain.debugDescription)")
        #expect(!error.chain.links.contains { $0.reason?.contains("sk9Qz4") == true })
    }

    @Test func encodingGoodValuesGivesTheirJSON() throws {
        let data = try JSONError.encode(["a": 1])
        #expect(String(decoding: data, as: UTF8.self) == #"{"a":1}"#)
    }
}
