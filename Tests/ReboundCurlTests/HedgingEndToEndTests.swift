import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import TestSupport
import Testing

/// Hedging over the real libcurl transport against a loopback server whose first answer stalls.
@Suite struct HedgingEndToEndTests {
    typealias Code = PipelineEndToEndTests.SampleCode
    typealias Item = PipelineEndToEndTests.Item

    static func endpoint(_ method: HTTPRequest.Method) -> Endpoint<[Item], Code> {
        var endpoint = Endpoint<[Item], Code>(
            method, "/tasks", body: method == .get ? nil : Data("{}".utf8), errorCode: .listTasksFailed)
        endpoint.options.hedging = HedgingPolicy(delay: .fixed(.milliseconds(100)))
        return endpoint
    }

    /// A reply that never comes: the route's task sleeps until the connection closes, which
    /// cancels it, and counts that in `cancelled`. The server closes a connection whose client
    /// closed its side after ``idle`` (until then it would still answer, as to a half-close).
    ///
    /// The same limit closes a connection that brings no request head for as long: shorter, it
    /// would close a hedge's fresh connection before a machine slowed down by a sanitizer sends
    /// the request, or a kept-alive one just as the next call takes it, and the reset would end
    /// the call (these data managers have no handler that retries).
    static let idle = LoopbackServer.Limits(idleTimeout: .seconds(5))

    /// Limits no attempt of these tests reaches, even on a machine slowed down by a sanitizer and
    /// the rest of the suite (where a loopback answer has taken seconds): only the stalled attempt
    /// is meant to wait, and the hedge beside it ends the call.
    static let patient = RequestLimits(maxAttempts: 4, deadline: .seconds(120), attemptTimeout: .seconds(120))

    static func stallUntilCancelled(counting cancelled: Locked<Int>) -> LoopbackFault {
        LoopbackFault("stall-until-cancelled") { _, _ in
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.withLock { $0 += 1 }
            }
            return .stall
        }
    }

    /// Runs `body` against a loopback server answering `method /tasks` with `json`, whose first
    /// such request stalls until cancelled (counted in the last argument), and a transport.
    func withStalledFirstAnswer(
        _ method: String = "GET", json: String,
        _ body: (LoopbackServer, CurlTransport, Locked<Int>) async throws -> Void
    ) async throws {
        let route = LoopbackRoute(method, "/tasks") { _ in .json(json) }
        let server = try await LoopbackServer.start(limits: Self.idle, routes: [route])
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let cancelled = Locked(0)
        server.faults.inject(
            LoopbackFaultRule(
                method, "/tasks", fault: Self.stallUntilCancelled(counting: cancelled), trigger: .times(1))
        )
        do {
            try await body(server, transport, cancelled)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// Runs `call`; if it fails, records the error's whole chain, which the top layer's
    /// description alone does not show.
    func explained<Value>(_ call: () async throws -> Value) async throws -> Value {
        do {
            return try await call()
        } catch {
            Issue.record("The call failed: \(ErrorChain(error).full)")
            throw error
        }
    }

    @Test func aStalledFirstAttemptIsHedgedTheHedgeWinsAndTheLosersTransferIsRemoved() async throws {
        try await withStalledFirstAnswer(json: #"[{"id":1},{"id":2}]"#) { server, transport, cancelled in
            let api = try APIDataManager(baseURL: server.baseURL, transport: transport, limits: Self.patient)
            let answer = try await explained { try await api.response(for: Self.endpoint(.get)) }
            #expect(answer.value.count == 2)
            #expect(answer.history.attempts.map(\.number) == [2], "\(answer.history.summary)")
            #expect(server.requests(to: "/tasks") == 2)
            #expect(server.connectionsAccepted == 2)
            // The loser's transfer was removed: its connection closed, and the server's reply
            // task was cancelled with it.
            #expect(await waitUntil { cancelled.withLock { $0 } == 1 })
            // The stall was the first request's alone: the next call is answered.
            let next = try await explained { try await api.response(for: Self.endpoint(.get)) }
            #expect(next.value.count == 2)
        }
    }

    /// A hedge goes to a host whose first answer has not come: over HTTP/1.1 it must not wait
    /// for that answer to learn whether the connection multiplexes.
    @Test func aRequestBesideAStalledOneToTheSameHostIsAnsweredWhileTheFirstStillWaits() async throws {
        try await withStalledFirstAnswer(json: #"[{"id":1}]"#) { server, transport, cancelled in
            var options = TransportOptions()
            options.timeout = .seconds(30)
            let first = Task { try await transport.send(server.request("/tasks"), body: nil, options: options) }
            try await server.waitForRequests(to: "/tasks", count: 1)
            let second = try await transport.send(server.request("/tasks"), body: nil, options: options)
            #expect(second.status == .ok)
            // The first is still waiting for its answer; cancelled, its transfer is removed.
            #expect(cancelled.withLock { $0 } == 0)
            first.cancel()
            await #expect(throws: NetworkError.self) { try await first.value }
            #expect(await waitUntil { cancelled.withLock { $0 } == 1 })
        }
    }

    @Test func aPostWithoutAnIdempotencyKeyIsNeverHedged() async throws {
        try await withStalledFirstAnswer("POST", json: #"[{"id":1}]"#) { server, transport, cancelled in
            // 5 s: under the thread sanitizer beside the whole suite, a request has taken over a
            // second to reach the server.
            let api = try APIDataManager(
                baseURL: server.baseURL, transport: transport, limits: RequestLimits(attemptTimeout: .seconds(5)))
            // The first answer never comes: the call fails at its attempt's timeout, with no hedge.
            await #expect(throws: LayerError<Code>.self) { try await api.send(Self.endpoint(.post)) }
            #expect(server.requests(to: "/tasks") == 1)
            // With a key, the same call is hedged, and the hedge wins.
            server.faults.inject(
                LoopbackFaultRule(
                    "POST", "/tasks", fault: Self.stallUntilCancelled(counting: cancelled), trigger: .times(1)))
            var keyed = Self.endpoint(.post)
            keyed.headerFields[BackendTemporaryErrorHandler.idempotencyKey] = "3f1c2e"
            let patient = try APIDataManager(baseURL: server.baseURL, transport: transport, limits: Self.patient)
            let hedged = try await explained { try await patient.response(for: keyed) }
            #expect(hedged.history.attempts.map(\.number) == [2])
            #expect(server.requests(to: "/tasks") == 3)
        }
    }
}
