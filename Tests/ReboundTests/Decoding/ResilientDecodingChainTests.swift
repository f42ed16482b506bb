import Foundation
import Testing

@testable import Rebound

/// Recovered errors as chain links: under the endpoint's code, over the JSON layer.
@Suite struct ResilientDecodingChainTests {
    private struct Catalogue: Decodable {
        @Resilient var chores: [Chore]
        @Resilient var currency: Currency
        @Resilient var status: ChoreStatus
        @Resilient var labels: [String]
    }

    private static func recovered(_ json: String) throws -> [APIError] {
        let (_, digest) = try decodeWithDigest(Catalogue.self, json)
        return digest.errors(under: APIErrorCode.listTasksFailed)
    }

    @Test func aTypeMismatchIsAPIOverJSONOverDecodingError() throws {
        let errors = try Self.recovered(
            #"{"chores": [{"id": 1, "title": "a", "reward": 1}, {"id": 2, "title": "b", "reward": "lots"}]}"#)
        let error = try #require(errors.first)
        #expect(errors.count == 1)
        #expect(error.chain.short == "AP8-JS1-DE1")
        #expect(error.chain.full == "APIError.listTasksFailed - JSONError.typeMismatch - DecodingError.typeMismatch")
        let json = try #require(error.firstError(in: JSONErrorCode.self))
        #expect(json.context[JSONError.codingPathKey]?.revealed == "chores[1].reward")
        #expect(error.reason?.contains("chores[1].reward") == true)
        #expect(error.context[ResilientDecodingDigest.recoveredContextKey]?.revealed == "true")
    }

    @Test func eachKindOfFailureKeepsItsOwnCode() throws {
        let errors = try Self.recovered(
            #"""
            {"chores": [{"id": 1, "reward": 1}, {"id": 2, "title": null, "reward": 1}],
             "currency": "gbp", "labels": ["a", 3]}
            """#
        )
        #expect(errors.map(\.chain.short) == ["AP8-JS3-DE3", "AP8-JS2-DE2", "AP8-JS4-DE4", "AP8-JS1-DE1"])
        #expect(
            errors.map { $0.firstError(in: JSONErrorCode.self)?.context[JSONError.codingPathKey]?.revealed } == [
                "chores[0].title", "chores[1].title", "currency", "labels[1]",
            ]
        )
    }

    @Test func expectedUnknownValuesAreNotReported() throws {
        let errors = try Self.recovered(#"{"status": "archived"}"#)
        #expect(errors.isEmpty)
    }

    @Test func aModelsOwnErrorIsADataCorruptedJSONError() throws {
        struct Refusal: Error {}
        struct Refused: Decodable {
            init(from decoder: any Decoder) throws { throw Refusal() }
        }
        struct Model: Decodable { @Resilient var items: [Refused] }
        let (_, digest) = try decodeWithDigest(Model.self, #"{"items": [1]}"#)
        let error = try #require(digest.errors(under: APIErrorCode.listTasksFailed).first)
        #expect(error.chain.links.map(\.shortName) == ["AP", "JS", "XX"])
        #expect(error.firstError(in: JSONErrorCode.self)?.code == .dataCorrupted)
        #expect(error.firstError(in: JSONErrorCode.self)?.context[JSONError.codingPathKey]?.revealed == "items[0]")
        #expect(error.rootCause is Refusal)
    }

    @Test func theCallersContextGoesOnTheOuterLink() throws {
        let (_, digest) = try decodeWithDigest(Catalogue.self, #"{"labels": [true]}"#)
        let error = try #require(
            digest.errors(under: APIErrorCode.currentWorker, context: ["endpoint": "GET /v1/chores"]).first)
        #expect(error.code == .currentWorker)
        #expect(error.context["endpoint"]?.revealed == "GET /v1/chores")
        #expect(error.chain.short == "AP103-JS1-DE1")
    }

    @Test func anEntryBecomesAJSONErrorOnItsOwn() throws {
        let (_, digest) = try decodeWithDigest(Catalogue.self, #"{"labels": [true]}"#)
        let entry = try #require(digest.errors.first)
        let json = entry.jsonError()
        #expect(json.code == .typeMismatch)
        #expect(json.chain.short == "JS1-DE1")
        #expect(json.cause is DecodingError)
    }
}
