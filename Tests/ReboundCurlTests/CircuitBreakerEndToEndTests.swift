import Foundation
import Rebound
import ReboundCurl
import ReboundMockBackend
import Testing

/// The circuit breaker over the real libcurl transport against a loopback server that goes
/// down and comes back.
@Suite struct CircuitBreakerEndToEndTests {
    @Test func theBreakerOpensOnAnOutageStopsSendingAndClosesAfterRecovery() async throws {
        let route = LoopbackRoute("GET", "/tasks") { _ in .json(#"[{"id":1},{"id":2}]"#) }
        let server = try await LoopbackServer.start(routes: [route])
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let transitions = Locked<[String]>([])
        let breaker = CircuitBreakerHandler(
            configuration: .init(breakDuration: .seconds(2), breakJitter: 0),
            onTransition: { transition in transitions.withLock { $0.append("\(transition.from)→\(transition.to)") } })
        let retries = BackendTemporaryErrorHandler(
            configuration: .init(backoff: Backoff(base: .milliseconds(5), cap: .milliseconds(20))),
            random: SeededRandom(seed: 5))
        let api = try APIDataManager(
            baseURL: server.baseURL, transport: transport, handlers: [breaker, retries],
            limits: RequestLimits(maxAttempts: 3))
        // The breaker's key is the request's host and port.
        let key = server.authority
        func call() async -> String {
            do {
                _ = try await api.send(PipelineEndToEndTests.list)
                return "ok"
            } catch {
                return error.chain.short
            }
        }
        do {
            #expect(await call() == "ok")
            // The outage: every answer is 503. Every attempt is counted, retries included.
            server.faults.inject(LoopbackFaultRule("GET", "/tasks", fault: .replying(.respond(status: 503))))
            var results: [String] = []
            while results.last != "AP8-RE50", results.count < 10 { results.append(await call()) }
            #expect(results.last == "AP8-RE50")
            // Retries until the retry budget stops them (RE4), then the breaker opens.
            #expect(results.dropLast().allSatisfy { $0.hasSuffix("-HT503") }, "\(results)")
            #expect(breaker.status(of: key).state == .open)
            // While open, nothing reaches the server, and the person is told when to try again.
            let sent = server.requests(to: "/tasks")
            let refused = await #expect(throws: LayerError<PipelineEndToEndTests.SampleCode>.self) {
                try await api.send(PipelineEndToEndTests.list)
            }
            #expect(server.requests(to: "/tasks") == sent)
            let shown = ErrorPresenter.standard.present(try #require(refused))
            let wait = try #require(refused?.cause?.attachment(CircuitOpen.self)?.retryAfter)
            #expect(wait > .zero && wait <= .seconds(2))
            let seconds = wait.components.attoseconds > 0 ? wait.components.seconds + 1 : wait.components.seconds
            #expect(shown.message == "The service is unavailable. Please try again in \(seconds) s.")
            // The service recovers; once the break is over, the probe succeeds and closes it.
            server.faults.reset()
            let opensAt = try #require(breaker.status(of: key).opensForProbeAt)
            try await Task.sleep(for: opensAt - TimeSource.system.now() + .milliseconds(10))
            #expect(await call() == "ok")
            #expect(breaker.status(of: key).state == .closed)
            #expect(transitions.withLock { $0 } == ["closed→open", "open→halfOpen", "halfOpen→closed"])
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
