import Foundation
import HTTPTypes
import Rebound

/// Scripts the mock backend through its control routes, so that the session meets each failure
/// on cue, whether the backend runs in this process or stands alone (`--backend URL`).
struct BackendControl: Sendable {
    let transport: any HTTPTransport
    let scheme: String
    let authority: String

    init(baseURL: String, transport: any HTTPTransport) throws {
        guard let components = URLComponents(string: baseURL), let scheme = components.scheme,
            let host = components.host
        else { throw ValidationFailure("--backend must be an http URL such as http://127.0.0.1:8080") }
        self.transport = transport
        self.scheme = scheme
        self.authority = components.port.map { "\(host):\($0)" } ?? host
    }

    /// Makes the next requests that match fail: `failure` is spelled as in `X-Mock-Failure`.
    func fail(_ method: String, _ path: String, with failure: String, times: Int = 1) async throws {
        let rule = #"{"rules":[{"method":"\#(method)","path":"\#(path)","failure":"\#(failure)","times":\#(times)}]}"#
        try await post("/v1/scenario", body: rule)
    }

    /// Removes every failure still scripted: the service is back.
    func clearFailures() async throws {
        let response = try await transport.send(request(.delete, "/v1/scenario"))
        guard (200..<300).contains(response.status.code) else {
            throw ValidationFailure(
                "the backend refused /v1/scenario with \(response.status.code); is it a mock-backend?")
        }
    }

    /// Moves the backend's clock forward, so that tokens expire without waiting.
    func advanceClock(seconds: Int) async throws {
        try await post("/v1/clock/advance", body: #"{"seconds":\#(seconds)}"#)
    }

    /// Puts the backend back as it started: accounts, tokens, rules, stats.
    func reset() async throws {
        try await post("/v1/reset", body: "{}")
    }

    /// What the backend saw, as JSON.
    func stats() async throws -> [String: Any] {
        let response = try await transport.send(request(.get, "/v1/stats"))
        return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    private func post(_ path: String, body: String) async throws {
        var request = request(.post, path)
        request.headerFields[.contentType] = "application/json"
        let response = try await transport.send(request, body: Data(body.utf8))
        guard (200..<300).contains(response.status.code) else {
            throw ValidationFailure("the backend refused \(path) with \(response.status.code); is it a mock-backend?")
        }
    }

    private func request(_ method: HTTPRequest.Method, _ path: String) -> HTTPRequest {
        HTTPRequest(method: method, scheme: scheme, authority: authority, path: path)
    }
}

/// A mistake in how the example was started, said plainly.
struct ValidationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
