import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import Testing

/// The endpoint shorthands as a call site uses them, through a data manager.
@Suite struct EndpointTests {
    struct Answer: Encodable, Sendable {
        var answer: String
    }

    /// Encodes as nothing a JSON encoder accepts.
    struct Unencodable: Encodable, Sendable {
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(
                self, .init(codingPath: [], debugDescription: "This value cannot be encoded."))
        }
    }

    @Test func interpolatedPathValuesAndQueryItemsArePercentEncoded() async throws {
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport)
        let id = "a/b?c d"
        _ = try await api.send(
            .get(
                "/tasks/\(id)", query: ["q": "x&y=z", "page": "2"], returning: [TaskItem].self,
                errorCode: APIErrorCode.listTasksFailed))
        #expect(transport.requests.first?.request.path == "/v1/tasks/a%2Fb%3Fc%20d?q=x%26y%3Dz&page=2")
    }

    @Test func theTemplateNamesTheEndpointWithoutItsValues() {
        let id = 42
        let endpoint = Endpoint.get(
            "/tasks/\(id)/answers", returning: [TaskItem].self, errorCode: APIErrorCode.listTasksFailed)
        #expect(endpoint.template == "/tasks/{}/answers")
        #expect(endpoint.path == "/tasks/42/answers")
    }

    @Test(arguments: [
        "/tasks/a b", "/tasks/\"x\"", "/tasks/%zz", "/tasks#frag", "/tasks?q=a b", "/tasks/\u{7F}",
        // Dot segments, which libcurl and servers resolve to another path.
        "/tasks/../admin", "/tasks/./7", "/..", "/tasks/..?q=1", "/tasks/.",
    ])
    func aRawPathThatCannotBeSentAsWrittenIsRefusedUnsent(path: String) async throws {
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport)
        let error = await #expect(throws: APIError.self) {
            try await api.send(Endpoint<[TaskItem], APIErrorCode>(.get, path, errorCode: .listTasksFailed))
        }
        #expect(error?.chain.short == "AP8-NE\(NetworkErrorCode.invalidURL.rawValue)")
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [
        "/tasks/..a", "/tasks/a.b/...", "/tasks/.hidden", "/tasks?next=../x", "/tasks?q=.", "/tasks?a=/./b",
        "/tasks/%2E%2E",
    ])
    func aRawPathWhoseDotsAreNotSegmentsIsSentAsWritten(path: String) async throws {
        // Dots in a longer segment, or in the query, name nothing else; an encoded dot is data.
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport)
        _ = try await api.send(Endpoint<[TaskItem], APIErrorCode>(.get, path, errorCode: .listTasksFailed))
        #expect(transport.requests.first?.request.path == "/v1" + path)
    }

    @Test(arguments: ["..", ".", ""])
    func anInterpolatedValueThatWouldNameAnotherResourceIsRefusedUnsent(id: String) async throws {
        // As one segment, ".." would climb to /v1/ and "." or "" name the collection, /v1/tasks/:
        // libcurl resolves dot segments before sending, and so do most servers.
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport)
        let error = await #expect(throws: APIError.self) {
            try await api.send(.delete("/tasks/\(id)", errorCode: APIErrorCode.listTasksFailed))
        }
        #expect(error?.chain.short == "AP\(APIErrorCode.listTasksFailed.rawValue)-NE15")
        #expect(transport.requests.isEmpty)
    }

    @Test func anInterpolatedValueWithDotsAmongOtherCharactersIsOneSegment() async throws {
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport)
        let id = "..a"
        _ = try await api.send(
            .get("/tasks/\(id)", returning: [TaskItem].self, errorCode: APIErrorCode.listTasksFailed))
        #expect(transport.requests.first?.request.path == "/v1/tasks/..a")
    }

    @Test func anEndpointWhosePathWasReplacedIsJudgedByTheNewPath() async throws {
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport)
        var endpoint = Endpoint.get(
            "/tasks/\("..")", returning: [TaskItem].self, errorCode: APIErrorCode.listTasksFailed)
        endpoint.path = "/tasks"
        _ = try await api.send(endpoint)
        #expect(transport.requests.first?.request.path == "/v1/tasks")
    }

    @Test func aJSONBodyIsEncodedWhenSentWithTheDataManagersEncoder() async throws {
        let transport = ScriptedTransport([.status(.noContent)])
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let api = try APIDataManager(
            baseURL: "https://api.example.com/v1", transport: transport, time: TestClock().timeSource,
            jsonEncoder: encoder)
        struct Submission: Encodable, Sendable { var answerText: String }
        try await api.send(
            .post("/tasks/7/answers", json: Submission(answerText: "yes"), errorCode: APIErrorCode.getTokenFailed))
        let sent = try #require(transport.requests.first)
        #expect(sent.body.map { String(decoding: $0, as: UTF8.self) } == #"{"answer_text":"yes"}"#)
        #expect(sent.request.headerFields[.contentType] == "application/json")
        #expect(sent.request.method == .post)
    }

    @Test func aBodyThatCannotBeEncodedFailsTheCallWithTheEndpointsCodeOverAJSONError() async throws {
        let transport = ScriptedTransport([.status(.noContent)])
        let api = try makeManager(transport)
        let error = await #expect(throws: APIError.self) {
            try await api.send(.post("/tasks/7/answers", json: Unencodable(), errorCode: APIErrorCode.getTokenFailed))
        }
        #expect(error?.chain.short.hasPrefix("AP\(APIErrorCode.getTokenFailed.rawValue)-JS7") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test func theDataManagersDecoderReadsTheAnswers() async throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Profile: Decodable, Sendable { var displayName: String }
        let transport = ScriptedTransport([.json(#"{"display_name":"Ada"}"#)])
        let api = try APIDataManager(
            baseURL: "https://api.example.com/v1", transport: transport, time: TestClock().timeSource,
            jsonDecoder: decoder)
        let profile = try await api.send(.get("/me", returning: Profile.self, errorCode: APIErrorCode.listTasksFailed))
        #expect(profile.displayName == "Ada")
    }

    @Test func anEndpointWithoutAResponseBodyNeedsNoDecoding() async throws {
        let transport = ScriptedTransport([.status(.noContent), .status(.ok)])
        let api = try makeManager(transport)
        try await api.send(.delete("/tasks/7", errorCode: APIErrorCode.getTokenFailed))
        try await api.send(Endpoint(.put, "/tasks/7/seen", errorCode: APIErrorCode.getTokenFailed))
        #expect(transport.requests.map(\.request.method) == [.delete, .put])
    }
}
