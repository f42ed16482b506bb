import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMarketplace
import ReboundMockBackend
import Testing

/// Starts a mock backend and a transport for one test, and stops both afterwards.
func withBackend<T>(
    _ configuration: MockBackend.Configuration = MockBackend.Configuration(),
    limits: LoopbackServer.Limits = .default,
    _ body: (MarketplaceClient) async throws -> T
) async throws -> T {
    let backend = try await MockBackend.start(configuration: configuration, limits: limits)
    let client = MarketplaceClient(backend: backend, transport: CurlTransport())
    do {
        let result = try await body(client)
        client.transport.shutdown()
        try await backend.shutdown()
        return result
    } catch {
        client.transport.shutdown()
        try await backend.shutdown()
        throw error
    }
}

/// A response as the tests read it: status, header fields and body.
struct Reply: Sendable {
    var status: Int
    var headers: HTTPFields
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }

    /// The body as the one error format of the mock backend.
    func error() throws -> ErrorBody {
        try decode(ErrorBody.self)
    }

    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}

/// `{"code", "reason"?, "message", "field"?, "captcha"?}`.
struct ErrorBody: Decodable, Equatable {
    struct Captcha: Decodable, Equatable {
        var id: String
        var question: String
    }

    var code: String
    var reason: String?
    var message: String
    var field: String?
    var captcha: Captcha?
}

struct TokenPair: Decodable {
    var accessToken: String
    var refreshToken: String
    var expiresIn: Int
    var tokenType: String
}

struct TaskItem: Decodable, Equatable {
    var id: Int
    var title: String
    var reward: Double
    var status: String
    var tags: [String]
}

struct AcceptedAnswer: Decodable, Equatable {
    var answerId: Int
    var taskId: Int
    var accepted: Bool
}

struct Profile: Decodable, Equatable {
    var id: Int
    var username: String
    var balance: Double
    var answers: Int
}

/// A small client of the marketplace over `CurlTransport`, with just enough API to keep tests short.
struct MarketplaceClient: Sendable {
    let backend: MockBackend
    let transport: CurlTransport

    /// Sends a request and returns the response, whatever its status.
    func send(
        _ method: HTTPRequest.Method,
        _ target: String,
        json: String? = nil,
        token: String? = nil,
        headers: [String: String] = [:],
        options: TransportOptions = TransportOptions()
    ) async throws -> Reply {
        var fields = HTTPFields()
        if json != nil { fields[.contentType] = "application/json" }
        if let token { fields[.authorization] = "Bearer \(token)" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            fields[try #require(HTTPField.Name(name))] = value
        }
        let request = HTTPRequest(
            method: method,
            scheme: "http",
            authority: backend.authority,
            path: target,
            headerFields: fields
        )
        let response = try await transport.send(request, body: json.map { Data($0.utf8) }, options: options)
        return Reply(status: response.status.code, headers: response.head.headerFields, body: response.body)
    }

    func get(_ target: String, token: String? = nil, failure: String? = nil) async throws -> Reply {
        try await send(.get, target, token: token, headers: failure.map { ["X-Mock-Failure": $0] } ?? [:])
    }

    /// Logs in and returns the token pair.
    func login(_ username: String = "alice", _ password: String = "wonderland") async throws -> TokenPair {
        let reply = try await send(.post, "/v1/login", json: #"{"username":"\#(username)","password":"\#(password)"}"#)
        #expect(reply.status == 200, "login: \(reply.text)")
        return try reply.decode()
    }

    /// Logs in and returns the access token.
    func accessToken(_ username: String = "alice", _ password: String = "wonderland") async throws -> String {
        try await login(username, password).accessToken
    }

    /// Submits an answer to a task.
    func submit(
        _ answer: String,
        to taskID: Int = 1,
        token: String,
        key: String? = nil,
        extraFields: String = ""
    ) async throws -> Reply {
        let body = #"{"answer":"\#(answer)"\#(extraFields)}"#
        return try await send(
            .post,
            "/v1/tasks/\(taskID)/answers",
            json: body,
            token: token,
            headers: key.map { ["Idempotency-Key": $0] } ?? [:]
        )
    }
}
