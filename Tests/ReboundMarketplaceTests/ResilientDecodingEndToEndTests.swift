import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMarketplace
import ReboundMockBackend
import Testing

/// Resilient decoding over the real stack: the mock backend's partly malformed answers, through
/// libcurl and the data manager, with the recovered errors reported under the endpoint's code.
@Suite struct ResilientDecodingEndToEndTests {
    enum MarketCode: Int, ErrorCode {
        static let domain = "TaskAPIError"
        static let shortName = "AP"
        case listTasksFailed = 3
    }

    struct MarketTask: Decodable, Equatable {
        var id: Int
        var title: String
        var reward: Double
    }

    /// One attempt with time to spare: these tests are about decoding, and under a sanitizer, with
    /// the whole suite running beside them on two cores, a loopback answer can take longer than
    /// the default attempt timeout.
    static let patient = RequestLimits(maxAttempts: 1, deadline: .seconds(300), attemptTimeout: .seconds(300))

    @Test func aPartlyMalformedListSucceedsWithTheGoodTasksAndReportsTheBadOne() async throws {
        let backend = try await MockBackend.start()
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let login = try await transport.send(
            HTTPRequest(method: .post, scheme: "http", authority: backend.authority, path: "/v1/login"),
            body: Data(#"{"username":"alice","password":"wonderland"}"#.utf8)
        )
        let token = try #require(
            (try JSONSerialization.jsonObject(with: login.body) as? [String: Any])?["accessToken"] as? String)

        let reported = Locked<[String]>([])
        let observer = PartialDecodingCallback { errors in
            reported.withLock {
                $0 += errors.map {
                    "\($0.chain.short) \($0.chain.links.first { $0.domain == "JSONError" }?.context.first { $0.key == "codingPath" }?.value ?? "")"
                }
            }
        }
        let api = try APIDataManager(baseURL: backend.baseURL, transport: transport, limits: Self.patient)
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        headers[HTTPField.Name(MockBackend.failureHeaderName)!] = "partly-malformed-json"
        // The backend answers a bare list: `Resilient<[Task]>` decodes it, keeping the good elements.
        let endpoint = Endpoint<Resilient<[MarketTask]>, MarketCode>(
            resilient: .get, "/v1/tasks", headerFields: headers, errorCode: .listTasksFailed, observer: observer)
        let list = try await api.send(endpoint)

        let good = list.wrappedValue
        #expect(good.count == 6)
        #expect(list.projectedValue.errors.count == 1)
        #expect(!good.contains { $0.id == 2 })
        let lines = reported.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("AP3-JS1-DE1") == true)
        #expect(lines.first?.contains("[1]") == true)
        #expect(backend.stats.failuresInjected["partly-malformed-json"] == 1)
        try await backend.shutdown()
    }

    @Test func aWhollyMalformedBodyFailsWithTheJSONLayerInTheChain() async throws {
        let backend = try await MockBackend.start()
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let api = try APIDataManager(baseURL: backend.baseURL, transport: transport, limits: Self.patient)
        var headers = HTTPFields()
        headers[HTTPField.Name(MockBackend.failureHeaderName)!] = "malformed-json"
        let endpoint = Endpoint<Resilient<[MarketTask]>, MarketCode>(
            resilient: .post, "/v1/login", headerFields: headers,
            body: Data(#"{"username":"alice","password":"wonderland"}"#.utf8), errorCode: .listTasksFailed)
        let error = await #expect(throws: LayerError<MarketCode>.self) { try await api.send(endpoint) }
        #expect(error?.chain.short.hasPrefix("AP3-JS5") == true, "the chain: \(error?.chain.short ?? "none")")
        try await backend.shutdown()
    }
}
