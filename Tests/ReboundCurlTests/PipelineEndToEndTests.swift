import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import Testing

/// The recovery pipeline over the real libcurl transport against a loopback server.
@Suite struct PipelineEndToEndTests {
    enum SampleCode: Int, ErrorCode {
        static let domain = "APIError"
        static let shortName = "AP"
        case listTasksFailed = 8
    }

    struct Item: Decodable, Equatable { var id: Int }

    static let list = Endpoint<[Item], SampleCode>(.get, "/tasks", errorCode: .listTasksFailed)

    /// A route that answers with `failures` in turn, then with the tasks.
    static func flaky(_ path: String, _ failures: [LoopbackReply]) -> LoopbackRoute {
        let served = Locked(0)
        return LoopbackRoute("GET", path) { _ in
            let index = served.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            return index < failures.count ? failures[index] : .json(#"[{"id":1},{"id":2}]"#)
        }
    }

    static func handler() -> BackendTemporaryErrorHandler {
        BackendTemporaryErrorHandler(
            configuration: .init(
                backoff: Backoff(base: .milliseconds(10), multiplier: 2, cap: .milliseconds(50), jitter: .full)),
            random: SeededRandom(seed: 42)
        )
    }

    func withAPI(
        _ route: LoopbackRoute,
        limits: RequestLimits = RequestLimits(),
        _ body: (APIDataManager, LoopbackServer) async throws -> Void
    ) async throws {
        let server = try await LoopbackServer.start(routes: [route])
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let api = try APIDataManager(
            baseURL: server.baseURL, transport: transport, handlers: [Self.handler()], limits: limits)
        do {
            try await body(api, server)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test func temporaryFailuresAreRetriedUntilTheyPass() async throws {
        let route = Self.flaky(
            "/tasks",
            [.respond(status: 503), .respond(status: 502, headers: [("Retry-After", "0")]), .closeWithoutResponse]
        )
        try await withAPI(route) { api, server in
            let items = try await api.send(Self.list)
            #expect(items == [Item(id: 1), Item(id: 2)])
            #expect(server.requests(to: "/tasks") >= 4)
        }
    }

    @Test func aStalledAttemptTimesOutAndTheRetrySucceeds() async throws {
        let route = Self.flaky("/tasks", [.stall])
        // An attempt that is answered takes milliseconds; the limit leaves room for a machine
        // whose two cores every test of the run shares, under the thread sanitizer.
        let limits = RequestLimits(deadline: .seconds(60), attemptTimeout: .seconds(3))
        try await withAPI(route, limits: limits) { api, server in
            let items = try await api.send(Self.list)
            #expect(items.count == 2)
            #expect(server.requests(to: "/tasks") >= 2)
        }
    }

    @Test func theBackendsPayloadAndStatusReachTheChain() async throws {
        let payload = #"{"code":"validation_failure","reason":"value_out_of_bounds","message":"Too big."}"#
        let route = LoopbackRoute("GET", "/tasks") { _ in .json(payload, status: 400) }
        try await withAPI(route) { api, _ in
            let error = await #expect(throws: LayerError<SampleCode>.self) { try await api.send(Self.list) }
            #expect(error?.chain.short == "AP8-BE30-HT400")
            #expect(error?.attachment(AttemptHistory.self)?.attempts.count == 1)
        }
    }

    @Test func retriesRunOutAgainstAServerThatKeepsFailing() async throws {
        let route = LoopbackRoute("GET", "/tasks") { _ in .respond(status: 503) }
        try await withAPI(route, limits: RequestLimits(maxAttempts: 3)) { api, server in
            let error = await #expect(throws: LayerError<SampleCode>.self) { try await api.send(Self.list) }
            #expect(error?.chain.short == "AP8-RE1-HT503")
            #expect(server.requests(to: "/tasks") == 3)
        }
    }

    /// Answers as `handler` does, and counts how often the manager asked it.
    struct CountingHandler: RecoverableErrorHandler {
        let handler: BackendTemporaryErrorHandler
        let asked = Locked(0)
        var name: String { handler.name }

        func recover(from failure: FailedAttempt) async throws -> RecoveryDecision {
            asked.withLock { $0 += 1 }
            return try await handler.recover(from: failure)
        }
    }

    // The backoff is five minutes: a cancellation that waited for it would overrun the limit.
    @Test(.timeLimit(.minutes(1)))
    func cancellingDuringARealBackoffEndsTheCallPromptly() async throws {
        let route = LoopbackRoute("GET", "/tasks") { _ in .respond(status: 503) }
        let server = try await LoopbackServer.start(routes: [route])
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let slow = CountingHandler(
            handler: BackendTemporaryErrorHandler(
                configuration: .init(
                    backoff: Backoff(base: .seconds(300), multiplier: 1, cap: .seconds(300), jitter: .none))))
        let api = try APIDataManager(
            baseURL: server.baseURL,
            transport: transport,
            handlers: [slow],
            limits: RequestLimits(deadline: .seconds(600))
        )
        let call = Task { try await api.send(Self.list) }
        // The 503 has arrived and the handler chose the backoff; the wait begins, or is about to.
        for _ in 0..<6000 where slow.asked.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(slow.asked.withLock { $0 } == 1)
        call.cancel()
        let error = await #expect(throws: LayerError<SampleCode>.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE40-HT503")
        try await server.shutdown()
    }
}
