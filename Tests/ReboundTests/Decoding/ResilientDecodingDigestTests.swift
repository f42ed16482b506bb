import Foundation
import Rebound
import Testing

/// The digest of a whole decode: every recovered error with its coding path, in every build.
@Suite struct ResilientDecodingDigestTests {
    /// The issue's example: one task with `"id": "seven"`, another with `"reward": "lots"`.
    static let partlyMalformed = #"""
        {"chores": [
            {"id": 1, "title": "Label the picture", "reward": 0.5},
            {"id": "seven", "title": "Transcribe", "reward": 1.0},
            {"id": 3, "title": "Rate the answer", "reward": "lots"},
            {"id": 4, "title": "Tag the photo", "reward": 2}
        ], "status": "open"}
        """#

    @Test func aHostileArrayOfBadElementsIsCountedNotKeptPastTheLimit() throws {
        // Two bytes on the wire for each element that fails: kept whole, each would cost its error,
        // its path and its digest entry, and a 32 MiB body some gigabytes.
        struct Model: Decodable { @Resilient var items: [Int] }
        let bad = 5_000
        let json =
            #"{"items": [1, "#
            + Array(repeating: #""x""#, count: bad).joined(separator: ", ") + "]}"
        let (model, digest) = try decodeWithDigest(Model.self, json)
        #expect(model.items == [1])
        let dropped = try #require(model.$items.outcome.error as? DroppedElementsError)
        #expect(dropped.errors.count == 1_000)
        #expect(dropped.omittedCount == bad - 1_000)
        #expect(dropped.description == "5000 elements could not be decoded and were left out.")
        #expect(digest.entries.count == 1_000)
        #expect(digest.omittedEntries == bad - 1_000)
        #expect(!digest.isEmpty)
        #expect(digest.description.hasSuffix("… and 4000 more recoveries, counted but not kept"))
    }

    @Test func aPartlyMalformedListKeepsTheGoodTasksAndDigestsTheBadOnes() throws {
        let (list, digest) = try decodeWithDigest(ChoreList.self, Self.partlyMalformed)
        #expect(list.chores.map(\.id) == [1, 4])
        #expect(list.chores.map(\.title) == ["Label the picture", "Tag the photo"])
        #expect(digest.errors.count == 2)
        #expect(
            digest.lines == [
                "chores[1].id: typeMismatch (expected Int, found a string)",
                "chores[2].reward: typeMismatch (expected Double, found a string)",
            ]
        )
    }

    @Test func theDigestRendersAsATreeOfPaths() throws {
        struct Model: Decodable {
            @Resilient var chores: [Chore]
            @Resilient var owner: Owner?
            @Resilient var status: ChoreStatus
            @Resilient var count: Int?

            struct Owner: Decodable { var email: String }
        }
        let (_, digest) = try decodeWithDigest(
            Model.self,
            #"""
            {"chores": [{"id": "a", "title": "t", "reward": 1}, {"id": 2, "reward": 1}],
             "owner": {"email": null}, "status": "archived", "count": "many"}
            """#
        )
        #expect(
            digest.description == """
                chores
                  [0].id: typeMismatch (expected Int, found a string)
                  [1].title: keyNotFound
                owner.email: valueNotFound (expected String, found null)
                status: unknown value "archived" for ChoreStatus (not frozen: expected, not an error)
                count: typeMismatch (expected Int, found a string)
                """
        )
    }

    @Test func aDecodeWithoutFailuresHasAnEmptyDigest() throws {
        let (list, digest) = try decodeWithDigest(
            ChoreList.self, #"{"chores": [{"id": 1, "title": "a", "reward": 1}], "status": "done"}"#)
        #expect(list.chores.count == 1)
        #expect(digest.isEmpty)
        #expect(digest.errors.isEmpty)
        #expect(digest.description == "nothing recovered")
    }

    @Test func aMissingKeyInsideAnElementEndsThePathWithTheKey() throws {
        let (_, digest) = try decodeWithDigest(
            ChoreList.self, #"{"chores": [{"id": 1, "reward": 1}], "status": "open"}"#)
        #expect(digest.lines == ["chores[0].title: keyNotFound"])
    }

    @Test func aModelsOwnErrorIsDigestedWhereItWasCaught() throws {
        struct Refusal: Error, CustomStringConvertible {
            var description: String { "odd numbers are refused" }
        }
        struct Even: Decodable {
            var value: Int
            init(from decoder: any Decoder) throws {
                value = try decoder.singleValueContainer().decode(Int.self)
                if !value.isMultiple(of: 2) { throw Refusal() }
            }
        }
        struct Model: Decodable { @Resilient var numbers: [Even] }
        let (model, digest) = try decodeWithDigest(Model.self, #"{"numbers": [2, 3, 4]}"#)
        #expect(model.numbers.map(\.value) == [2, 4])
        #expect(digest.errors.map(\.path) == ["numbers[1]"])
        #expect(digest.errors.first?.error is Refusal)
        #expect(digest.errors.first?.summary.contains("odd numbers are refused") == true)
    }

    @Test func aRecoveryAtTheTopLevelIsNamedSo() throws {
        let (value, digest) = try decodeWithDigest(Resilient<Int?>.self, #""one""#)
        #expect(value.wrappedValue == nil)
        #expect(digest.lines == ["(top level): typeMismatch (expected Int, found a string)"])
    }

    @Test func aCollectorInTheUserInfoWorksWithAnyDecoder() throws {
        let collector = ResilientDecodingCollector()
        let decoder = JSONDecoder()
        decoder.userInfo[.resilientDecodingCollector] = collector
        let list = try decoder.decode(ChoreList.self, from: Data(Self.partlyMalformed.utf8))
        #expect(list.chores.count == 2)
        #expect(collector.digest.errors.map(\.path) == ["chores[1].id", "chores[2].reward"])
    }

    @Test func withoutACollectorRecoveriesAreOnlyOnTheProperties() throws {
        let list = try decode(ChoreList.self, Self.partlyMalformed)
        #expect(list.$chores.errors.count == 2)
    }

    @Test func decodingResilientlyLeavesTheDecoderUnchangedAndUsesItsOptions() throws {
        struct Event: Decodable {
            @Resilient var startDate: Date?
            @Resilient var endDates: [Date]
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        let (event, digest) = try decoder.decodeResiliently(
            Event.self, from: Data(#"{"start_date": 10, "end_dates": [20, "soon"]}"#.utf8))
        #expect(event.startDate == Date(timeIntervalSince1970: 10))
        #expect(event.endDates == [Date(timeIntervalSince1970: 20)])
        #expect(digest.errors.map(\.path) == ["endDates[1]"])
        #expect(decoder.userInfo[.resilientDecodingCollector] == nil)
    }

    @Test func theJSONLayerDecodeReturnsTheDigestAndFailsWithTheJSONLayer() throws {
        let (list, digest) = try ResilientDecoding.decode(ChoreList.self, from: Data(Self.partlyMalformed.utf8))
        #expect(list.chores.count == 2)
        #expect(digest.errors.count == 2)

        let notJSON = #expect(throws: JSONError.self) {
            try ResilientDecoding.decode(ChoreList.self, from: Data("<html>".utf8))
        }
        #expect(notJSON?.code == .notJSON)
        let empty = #expect(throws: JSONError.self) {
            try ResilientDecoding.decode(ChoreList.self, from: Data())
        }
        #expect(empty?.code == .emptyBody)
        let wrongShape = #expect(throws: JSONError.self) {
            try ResilientDecoding.decode(ChoreList.self, from: Data("[1]".utf8))
        }
        #expect(wrongShape?.chain.short == "JS1-DE1")
    }

    @Test func concurrentDecodesWithOneSharedDecoderEachGetTheirOwnDigest() async throws {
        let decoder = JSONDecoder()
        let counts = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for bad in 0..<16 {
                group.addTask {
                    let elements = (0..<20).map { $0 < bad ? #""x\#($0)""# : "\($0)" }
                    let json = Data("[\(elements.joined(separator: ","))]".utf8)
                    let (_, digest) = try ResilientDecoding.decode(Resilient<[Int]>.self, from: json, decoder: decoder)
                    return (bad, digest.errors.count)
                }
            }
            var counts: [Int: Int] = [:]
            for try await (bad, count) in group { counts[bad] = count }
            return counts
        }
        #expect(counts.count == 16)
        for (bad, count) in counts { #expect(count == bad) }
    }
}
