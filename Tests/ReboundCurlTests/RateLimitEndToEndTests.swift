import Foundation
import Rebound
import ReboundCurl
import ReboundMockBackend
import Testing

/// The adaptive rate limiter over the real libcurl transport against a loopback server that
/// accepts 5 requests a second and answers the others 429 with the IETF draft's fields: fewer than
/// the 8 calls in flight, so that even a slow run (a sanitizer, a busy machine) is throttled.
@Suite(.serialized) struct RateLimitEndToEndTests {
    /// What the server saw of one storm: the requests it accepted and refused, and how the calls
    /// ended.
    struct Storm {
        var accepted: Int
        var refused: Int
        var results: [String]
    }

    /// 25 calls, 8 at a time, through the limiter (when given) and the backend-temporary handler,
    /// whose budget is large enough never to stop a retry: the 429s are the difference.
    static func storm(limiter: AdaptiveRateLimitHandler?) async throws -> Storm {
        let route = LoopbackRoute("GET", "/tasks") { _ in .json(#"[{"id":1}]"#) }
        let server = try await LoopbackServer.start(routes: [route])
        let counts = RateLimitCounts()
        server.faults.inject(LoopbackFaultRule(fault: .rateLimited(perSecond: 5, counts: counts)))
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let retries = BackendTemporaryErrorHandler(
            budget: RetryBudget(maxTokens: 10_000), random: SeededRandom(seed: 11))
        let api = try APIDataManager(
            baseURL: server.baseURL, transport: transport, handlers: (limiter.map { [$0] } ?? []) + [retries],
            // No attempt times out, even on a machine slowed down by a sanitizer and other tests:
            // an accepted request sent again would count twice.
            limits: RequestLimits(maxAttempts: 10, deadline: .seconds(120), attemptTimeout: .seconds(120)))
        let results = Locked<[String]>([])
        let next = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while next.withLock({ count in
                        defer { count += 1 }
                        return count < 25
                    }) {
                        do {
                            _ = try await api.send(PipelineEndToEndTests.list)
                            results.withLock { $0.append("ok") }
                        } catch {
                            results.withLock { $0.append(error.chain.short) }
                        }
                    }
                }
            }
        }
        try await server.shutdown()
        return Storm(accepted: counts.accepted, refused: counts.refused, results: results.withLock { $0 })
    }

    @Test func theLimiterSendsFewerRequestsTheServerRefusesThanRetriesAlone() async throws {
        let limiter = AdaptiveRateLimitHandler()
        let limited = try await Self.storm(limiter: limiter)
        // Read at once: during the second storm (seconds under a sanitizer) the bucket grows back.
        let status = limiter.status(of: limiter.keys.first ?? "")
        let unlimited = try await Self.storm(limiter: nil)
        #expect(limited.results.count == 25 && limited.results.allSatisfy { $0 == "ok" }, "\(limited.results)")
        #expect(limited.accepted == 25)
        #expect(unlimited.results.count == 25)
        #expect(unlimited.refused > 0)
        #expect(limited.refused < unlimited.refused, "with \(limited.refused) 429s, without \(unlimited.refused)")
        #expect(status.isLimiting)
        // The server's stated quota caps the rate.
        #expect(status.rate <= 5)
    }
}
