import Foundation
import HTTPTypes
import Rebound

/// The cost of the overload protection, in-process with no network: a call that the open circuit
/// breaker refuses, and a successful call through the breaker, the bulkhead and the adaptive rate
/// limiter against one through no handler, in alternating rounds over a transport that answers at
/// once.
enum OverloadBenchmark {
    static func run(iterations: Int) async throws -> String {
        let endpoint = Endpoint<TransportResponse, RecoveryDecisionBenchmark.BenchmarkCode>(
            raw: .get, "/tasks", errorCode: .fetchFailed)
        func manager(_ handlers: [any RecoverableErrorHandler]) throws -> APIDataManager {
            try APIDataManager(
                baseURL: "http://127.0.0.1", transport: RecoveryDecisionBenchmark.FixedTransport(), handlers: handlers)
        }
        let bare = try manager([])
        let protected = try manager([CircuitBreakerHandler(), ConcurrencyLimitHandler()])
        let broken = try manager([CircuitBreakerHandler()])
        let limited = try manager([AdaptiveRateLimitHandler()])
        let breaker = CircuitBreakerHandler()
        breaker.isolate("127.0.0.1")
        let refusing = try manager([breaker])
        func refused() async {
            do {
                _ = try await refusing.send(endpoint)
                fatalError("the isolated circuit let a call through")
            } catch {}
        }
        for _ in 0..<1000 {
            _ = try await bare.send(endpoint)
            _ = try await protected.send(endpoint)
            _ = try await broken.send(endpoint)
            _ = try await limited.send(endpoint)
            await refused()
        }
        let rounds = 10
        let perRound = max(1, (iterations - 1000) / rounds)
        var bareTimes: [Double] = []
        var protectedTimes: [Double] = []
        var refusedTimes: [Double] = []
        var breakerTimes: [Double] = []
        var limiterTimes: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let start = clock.now
            for _ in 0..<perRound { _ = try await bare.send(endpoint) }
            let middle = clock.now
            for _ in 0..<perRound { _ = try await protected.send(endpoint) }
            let end = clock.now
            for _ in 0..<perRound { await refused() }
            bareTimes.append(RecoveryDecisionBenchmark.nanoseconds(start.duration(to: middle)) / Double(perRound))
            protectedTimes.append(RecoveryDecisionBenchmark.nanoseconds(middle.duration(to: end)) / Double(perRound))
            let last = clock.now
            for _ in 0..<perRound { _ = try await broken.send(endpoint) }
            refusedTimes.append(RecoveryDecisionBenchmark.nanoseconds(end.duration(to: last)) / Double(perRound))
            let afterBreaker = clock.now
            breakerTimes.append(
                RecoveryDecisionBenchmark.nanoseconds(last.duration(to: afterBreaker)) / Double(perRound))
            for _ in 0..<perRound { _ = try await limited.send(endpoint) }
            limiterTimes.append(
                RecoveryDecisionBenchmark.nanoseconds(afterBreaker.duration(to: clock.now)) / Double(perRound))
        }
        return String(
            format: #"{"client":"overload","calls_per_round":%d,"rounds":%d,"ns_per_call_without_handlers":%.0f,"#
                + #""ns_per_call_through_breaker":%.0f,"ns_per_call_through_breaker_and_bulkhead":%.0f,"#
                + #""ns_per_call_through_rate_limiter":%.0f,"ns_per_call_refused_by_open_breaker":%.0f}"#,
            perRound, rounds, RecoveryDecisionBenchmark.median(bareTimes),
            RecoveryDecisionBenchmark.median(breakerTimes), RecoveryDecisionBenchmark.median(protectedTimes),
            RecoveryDecisionBenchmark.median(limiterTimes), RecoveryDecisionBenchmark.median(refusedTimes))
    }
}
