import Foundation
import HTTPTypes
import Rebound
import ReboundTesting

/// The cost of one recovery decision: classifying a failed attempt and asking the three built-in
/// handlers, waits excluded, measured in-process with no network.
///
/// It times calls that fail once with a 503 and then succeed against calls that succeed at once,
/// both through the same data manager over an in-memory transport with an immediate clock; the
/// difference per call is one failed attempt, its classification and the handlers' decision.
/// It also times a successful call over a transport that returns one fixed response, with the
/// real clock: no script, no lock, so what it measures is the pipeline's own success path.
enum RecoveryDecisionBenchmark {
    /// A transport that answers every request with the same response, at once.
    struct FixedTransport: HTTPTransport {
        let response = TransportResponse(head: HTTPResponse(status: .ok), body: Data(#"{"id":1}"#.utf8))

        func send(
            _ request: HTTPRequest, body: Data?, options: TransportOptions
        ) async throws(NetworkError) -> TransportResponse {
            response
        }
    }

    enum BenchmarkCode: Int, ErrorCode {
        static let domain = "BenchmarkError"
        static let shortName = "BM"
        case fetchFailed = 1
    }

    static func run(iterations: Int) async throws -> String {
        let ok = ScriptedTransport.Step.respond(status: .ok, body: Data(#"{"id":1}"#.utf8))
        let unavailable = ScriptedTransport.Step.respond(status: .serviceUnavailable)
        let endpoint = Endpoint<TransportResponse, BenchmarkCode>(raw: .get, "/tasks", errorCode: .fetchFailed)

        func manager(_ steps: [ScriptedTransport.Step]) throws -> APIDataManager {
            let store = InMemoryCredentialStore(Credential(accessToken: "benchmark-token"))
            return try APIDataManager(
                baseURL: "http://127.0.0.1",
                transport: ScriptedTransport(steps),
                handlers: [
                    BackendTemporaryErrorHandler(
                        configuration: .init(backoff: Backoff(base: .zero, multiplier: 1, cap: .zero, jitter: .none)),
                        budget: RetryBudget(maxTokens: 1000, tokenRatio: 1000)
                    ),
                    AuthRefreshHandler(store: store) { _ in Credential(accessToken: "refreshed") },
                    CaptchaRequiredHandler(solve: { _ in "" }, verify: { _, _ in }),
                ],
                time: TestClock().timeSource
            )
        }

        let bare = ScriptedTransport(Array(repeating: ok, count: iterations * 2))
        let bareRequest = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/tasks")
        let plain = try manager(Array(repeating: ok, count: iterations * 2))
        let recovering = try manager(Array((0..<iterations * 2).flatMap { _ in [unavailable, ok] }))
        let fixed = try fixedManager()
        // Warm up both, then alternate rounds so that noise hits both alike.
        for _ in 0..<1000 {
            _ = try await plain.send(endpoint)
            _ = try await recovering.send(endpoint)
            _ = try await fixed.send(endpoint)
        }
        let rounds = 10
        let perRound = max(1, (iterations - 1000) / rounds)
        var bareTimes: [Double] = []
        var plainTimes: [Double] = []
        var recoveringTimes: [Double] = []
        var fixedTimes: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let bareStart = clock.now
            for _ in 0..<perRound { _ = try await bare.send(bareRequest) }
            bareTimes.append(Self.nanoseconds(bareStart.duration(to: clock.now)) / Double(perRound))
            let start = clock.now
            for _ in 0..<perRound { _ = try await plain.send(endpoint) }
            let middle = clock.now
            for _ in 0..<perRound { _ = try await recovering.send(endpoint) }
            let end = clock.now
            plainTimes.append(Self.nanoseconds(start.duration(to: middle)) / Double(perRound))
            recoveringTimes.append(Self.nanoseconds(middle.duration(to: end)) / Double(perRound))
            let fixedStart = clock.now
            for _ in 0..<perRound { _ = try await fixed.send(endpoint) }
            fixedTimes.append(Self.nanoseconds(fixedStart.duration(to: clock.now)) / Double(perRound))
        }
        let plainMedian = Self.median(plainTimes)
        let recoveringMedian = Self.median(recoveringTimes)
        return String(
            format: #"{"client":"decision","workload":"decision","calls_per_round":%d,"rounds":%d,"#
                + #""ns_per_bare_transport_send":%.0f,"ns_per_successful_call":%.0f,"#
                + #""ns_per_call_with_one_recovery":%.0f,"ns_per_recovery_decision":%.0f,"#
                + #""ns_per_successful_call_over_fixed_response":%.0f}"#,
            perRound, rounds, Self.median(bareTimes), plainMedian, recoveringMedian, recoveringMedian - plainMedian,
            Self.median(fixedTimes)
        )
    }

    /// Only the successful call over a fixed response, for a profiler to see it alone
    /// (`--workload fixed`).
    static func runFixed(iterations: Int) async throws -> String {
        let endpoint = Endpoint<TransportResponse, BenchmarkCode>(raw: .get, "/tasks", errorCode: .fetchFailed)
        let fixed = try fixedManager()
        for _ in 0..<1000 { _ = try await fixed.send(endpoint) }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations { _ = try await fixed.send(endpoint) }
        return String(
            format: #"{"client":"decision","workload":"fixed","calls":%d,"#
                + #""ns_per_successful_call_over_fixed_response":%.0f}"#,
            iterations, nanoseconds(start.duration(to: clock.now)) / Double(max(1, iterations)))
    }

    /// The three built-in handlers over ``FixedTransport``, on the real clock.
    static func fixedManager() throws -> APIDataManager {
        try APIDataManager(
            baseURL: "http://127.0.0.1",
            transport: FixedTransport(),
            handlers: [
                BackendTemporaryErrorHandler(),
                AuthRefreshHandler(store: InMemoryCredentialStore(Credential(accessToken: "benchmark-token"))) { _ in
                    Credential(accessToken: "refreshed")
                },
                CaptchaRequiredHandler(solve: { _ in "" }, verify: { _, _ in }),
            ]
        )
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
