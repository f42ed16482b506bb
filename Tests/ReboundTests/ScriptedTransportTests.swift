import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import Testing

@Suite struct ScriptedTransportTests {
    let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/tasks")

    @Test func stepsArePlayedInOrderAndRequestsRecorded() async throws {
        let transport = ScriptedTransport([
            .fail(NetworkError(.timeout)),
            .respond(status: .ok, body: Data("ok".utf8)),
        ])
        let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
        #expect(error?.code == .timeout)
        let response = try await transport.send(request, body: Data("x".utf8))
        #expect(response.status == .ok)
        #expect(response.body == Data("ok".utf8))
        #expect(transport.requests.map(\.body) == [nil, Data("x".utf8)])
    }

    @Test func anExhaustedScriptFailsClearly() async {
        let transport = ScriptedTransport([])
        let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
        #expect(error?.code == .other)
        #expect(error?.reason?.contains("no step left") == true)
    }

    @Test func waitingForCancellationEndsWhenTheTaskIsCancelled() async {
        let transport = ScriptedTransport([.waitForCancellation])
        let task = Task { try await transport.send(request) }
        task.cancel()
        let error = await #expect(throws: NetworkError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test func aReplyStepSeesTheRequest() async throws {
        let transport = ScriptedTransport([
            .reply { request, _ in
                TransportResponse(head: HTTPResponse(status: request.path == "/v1/tasks" ? .ok : .notFound))
            }
        ])
        #expect(try await transport.send(request).status == .ok)
    }
}
