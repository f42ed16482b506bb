import Foundation
import PropertyBased
import Rebound
import Testing

/// Property tests over generated arrays with bad elements scattered in them.
@Suite struct ResilientPropertyTests {
    /// One generated element: a number, and whether it is sent malformed (as a string).
    struct Element: Sendable, CustomStringConvertible {
        var raw: Int

        var value: Int { raw / 3 }
        var isMalformed: Bool { raw % 3 == 0 }
        var json: String { isMalformed ? #""n\#(value)""# : "\(value)" }
        var description: String { json }
    }

    static let arrays = Gen.int(in: 0...3_000).map { Element(raw: $0) }.array(of: 0...40)

    private struct Model: Decodable {
        @Resilient var numbers: [Int]
    }

    @Test func anArrayKeepsExactlyTheGoodElementsInOrderAndDigestsTheRest() async {
        await propertyCheck(input: Self.arrays) { elements in
            let json = #"{"numbers": [\#(elements.map(\.json).joined(separator: ","))]}"#
            let (model, digest) = try decodeWithDigest(Model.self, json)
            #expect(model.numbers == elements.filter { !$0.isMalformed }.map(\.value))
            #expect(model.$numbers.results.count == elements.count)
            #expect(successes(model.$numbers.results) == elements.map { $0.isMalformed ? nil : $0.value })
            let badIndices = elements.indices.filter { elements[$0].isMalformed }
            #expect(digest.errors.map(\.path) == badIndices.map { "numbers[\($0)]" })
            #expect(model.$numbers.errors.count == badIndices.count)
            #expect((model.$numbers.outcome.kind == .recoveredFrom) == !badIndices.isEmpty)
        }
    }
}
