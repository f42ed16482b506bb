import Foundation
import HTTPTypes
import ReboundTesting
import Testing

@testable import Rebound

/// An observer that keeps what it is given.
private final class RecordingObserver: PartialDecodingObserver {
    private let calls = Locked<[[any Error]]>([])

    func recovered(_ errors: [any Error]) {
        calls.withLock { $0.append(errors) }
    }

    /// The short chains of each call.
    var chains: [[String]] {
        calls.withLock { $0.map { $0.map(\.chain.short) } }
    }

    var errors: [any Error] {
        calls.withLock { $0.flatMap { $0 } }
    }
}

/// Endpoints that decode resiliently: what they return, report and throw, alone and in the
/// data manager.
@Suite struct EndpointResilientTests {
    private static func response(_ json: String) -> TransportResponse {
        TransportResponse(head: HTTPResponse(status: .ok), body: Data(json.utf8))
    }

    private static func listChores(observer: (any PartialDecodingObserver)?) -> Endpoint<ChoreList, APIErrorCode> {
        Endpoint(resilient: .get, "/chores?token=abc", errorCode: .listTasksFailed, observer: observer)
    }

    @Test func aPartlyMalformedResponseSucceedsAndReportsWhatItDropped() throws {
        let observer = RecordingObserver()
        let list = try Self.listChores(observer: observer)
            .decode(Self.response(ResilientDecodingDigestTests.partlyMalformed))
        #expect(list.chores.map(\.id) == [1, 4])
        #expect(observer.chains == [["AP8-JS1-DE1", "AP8-JS1-DE1"]])
        let first = try #require(observer.errors.first as? APIError)
        #expect(first.context["endpoint"]?.revealed == "GET /chores")
        #expect(first.firstError(in: JSONErrorCode.self)?.context[JSONError.codingPathKey]?.revealed == "chores[1].id")
    }

    @Test func aCleanResponseReportsNothing() throws {
        let observer = RecordingObserver()
        let list = try Self.listChores(observer: observer)
            .decode(Self.response(#"{"chores": [{"id": 1, "title": "a", "reward": 1}], "status": "archived"}"#))
        #expect(list.chores.count == 1)
        #expect(list.status == .unknown)
        #expect(observer.chains.isEmpty)
    }

    @Test func aResponseThatCannotBeDecodedAtAllFailsWithTheJSONLayer() {
        let observer = RecordingObserver()
        let error = #expect(throws: JSONError.self) {
            try Self.listChores(observer: observer).decode(Self.response(#"["not", "an", "object"]"#))
        }
        #expect(error?.chain.short == "JS1-DE1")
        #expect(observer.chains.isEmpty)
    }

    @Test func withoutAnObserverOfItsOwnTheTasksObserverIsUsed() throws {
        let taskObserver = RecordingObserver()
        try ResilientDecoding.$observer.withValue(taskObserver) {
            _ = try Self.listChores(observer: nil).decode(Self.response(ResilientDecodingDigestTests.partlyMalformed))
        }
        #expect(taskObserver.chains == [["AP8-JS1-DE1", "AP8-JS1-DE1"]])
    }

    @Test func theEndpointsOwnObserverComesFirst() throws {
        let taskObserver = RecordingObserver()
        let endpointObserver = RecordingObserver()
        try ResilientDecoding.$observer.withValue(taskObserver) {
            _ = try Self.listChores(observer: endpointObserver)
                .decode(Self.response(ResilientDecodingDigestTests.partlyMalformed))
        }
        #expect(endpointObserver.chains.count == 1)
        #expect(taskObserver.chains.isEmpty)
    }

    @Test func aClosureCanObserve() throws {
        let received = Locked<[String]>([])
        let observer = PartialDecodingCallback { errors in
            received.withLock { $0 += errors.map(\.chain.short) }
        }
        _ = try Self.listChores(observer: observer).decode(Self.response(#"{"chores": [{"id": 1}]}"#))
        #expect(received.withLock { $0 } == ["AP8-JS3-DE3"])
    }

    @Test func theDecoderIsUsedWithItsOptions() throws {
        struct Stamp: Decodable, Sendable { @Resilient var createdAt: Date? }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        let endpoint = Endpoint<Stamp, APIErrorCode>(
            resilient: .get, "/stamp", errorCode: .currentWorker, decoder: decoder)
        let stamp = try endpoint.decode(Self.response(#"{"created_at": 5}"#))
        #expect(stamp.createdAt == Date(timeIntervalSince1970: 5))
    }

    // MARK: - Through the data manager

    @Test func theDataManagerReturnsAPartlyDecodedResponseAndTheObserverHearsOfIt() async throws {
        let observer = RecordingObserver()
        let api = try makeManager(ScriptedTransport([.json(ResilientDecodingDigestTests.partlyMalformed)]))
        let list = try await api.send(Self.listChores(observer: observer))
        #expect(list.chores.map(\.id) == [1, 4])
        #expect(observer.chains == [["AP8-JS1-DE1", "AP8-JS1-DE1"]])
    }

    @Test func theDataManagerFailsAnUndecodableResponseWithTheJSONLayerInItsChain() async throws {
        let observer = RecordingObserver()
        let api = try makeManager(ScriptedTransport([.json("<html>Bad Gateway</html>")]))
        let error = await #expect(throws: APIError.self) { try await api.send(Self.listChores(observer: observer)) }
        #expect(error?.chain.short == "AP8-JS5-DE4")
        #expect(observer.chains.isEmpty)
    }

    @Test func aTaskObserverSetAroundTheCallHearsOfEveryResilientEndpoint() async throws {
        let observer = RecordingObserver()
        let api = try makeManager(
            ScriptedTransport([
                .json(#"{"chores": [{"id": "x", "title": "a", "reward": 1}]}"#),
                .json(#"{"chores": [{"id": 2, "title": "b", "reward": false}]}"#),
            ])
        )
        try await ResilientDecoding.$observer.withValue(observer) {
            _ = try await api.send(Self.listChores(observer: nil))
            _ = try await api.send(Self.listChores(observer: nil))
        }
        #expect(observer.chains == [["AP8-JS1-DE1"], ["AP8-JS1-DE1"]])
    }
}
