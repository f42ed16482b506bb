import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import Rebound

@Suite struct TransportResponseTests {
    /// A parser that counts its calls and reads one "Name: value" line per line of the raw head.
    private final class CountingParser: Sendable {
        let calls = Atomic(0)

        var parser: DeferredResponseHead.Parser {
            { [self] raw, status in
                calls.add(1, ordering: .relaxed)
                var fields = HTTPFields()
                for line in String(decoding: raw, as: UTF8.self).split(separator: "\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, let name = HTTPField.Name(String(parts[0])) else { continue }
                    fields.append(HTTPField(name: name, value: parts[1].trimmingCharacters(in: .whitespaces)))
                }
                return HTTPResponse(status: status, headerFields: fields)
            }
        }
    }

    private func deferred(_ counter: CountingParser, head: String = "Content-Type: text/plain\nX-Twice: 1\nX-Twice: 2")
        -> TransportResponse
    {
        TransportResponse(
            deferredHead: DeferredResponseHead(status: .created, raw: Array(head.utf8), parser: counter.parser),
            body: Data("body".utf8),
            info: TransferInfo()
        )
    }

    @Test func theStatusNeedsNoParsing() {
        let counter = CountingParser()
        let response = deferred(counter)
        #expect(response.status == .created)
        #expect(response.body == Data("body".utf8))
        #expect(counter.calls.load(ordering: .relaxed) == 0)
    }

    @Test func theHeadIsParsedOnceOnFirstRead() {
        let counter = CountingParser()
        let response = deferred(counter)
        #expect(response.head.status == .created)
        #expect(response.head.headerFields[.contentType] == "text/plain")
        #expect(response.head.headerFields[values: HTTPField.Name("x-twice")!] == ["1", "2"])
        let copy = response
        #expect(copy.head.headerFields.count == 3)
        #expect(counter.calls.load(ordering: .relaxed) == 1)
    }

    @Test func aFieldNameIsLookedForInTheRawHeadWithoutParsingIt() {
        let counter = CountingParser()
        let limited = deferred(counter, head: "Content-Type: text/plain\nX-RATELIMIT-Remaining: 0")
        #expect(limited.mayHaveHeaderField(nameContaining: "ratelimit"))
        #expect(!limited.mayHaveHeaderField(nameContaining: "retry-after"))
        #expect(!deferred(counter).mayHaveHeaderField(nameContaining: "ratelimit"))
        #expect(counter.calls.load(ordering: .relaxed) == 0)

        // A parsed head answers from its fields.
        var parsed = TransportResponse(head: HTTPResponse(status: .ok))
        #expect(!parsed.mayHaveHeaderField(nameContaining: "retry-after"))
        parsed.head.headerFields[.retryAfter] = "5"
        #expect(parsed.mayHaveHeaderField(nameContaining: "retry-after"))
    }

    @Test func settingTheHeadReplacesTheDeferredOne() {
        let counter = CountingParser()
        var response = deferred(counter)
        response.head.headerFields[.retryAfter] = "5"
        #expect(counter.calls.load(ordering: .relaxed) == 1)
        #expect(response.head.headerFields[.retryAfter] == "5")
        #expect(response.head.headerFields[.contentType] == "text/plain")
        response.head = HTTPResponse(status: .accepted)
        #expect(response.status == .accepted)
        #expect(response.head.headerFields.isEmpty)
        #expect(counter.calls.load(ordering: .relaxed) == 1)
    }

    @Test func concurrentReadersAllSeeTheSameHead() async {
        let counter = CountingParser()
        let response = deferred(counter)
        let heads = await withTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<64 { group.addTask { response.head } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(heads.count == 64)
        #expect(Set(heads.map { $0.headerFields[values: HTTPField.Name("x-twice")!] }) == [["1", "2"]])
        // Racing readers may each parse, but no more than one parse per reader, and later reads none.
        let calls = counter.calls.load(ordering: .relaxed)
        #expect((1...64).contains(calls))
        _ = response.head
        #expect(counter.calls.load(ordering: .relaxed) == calls)
    }
}
