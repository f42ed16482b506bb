import Foundation
import ReboundMockBackend
import Testing

/// `rebound load`, the built binary, against loopback servers in this process: what reached the
/// server, what the protections refused, and how the run ends.
@Suite(.timeLimit(.minutes(3)))
struct LoadCommandTests {
    static let reportKeys: Set<String> = [
        "calls", "succeeded", "failed", "attempts", "amplification", "hedges", "fastFailed", "failuresByChain",
        "breakerTransitions", "latencySeconds", "elapsedSeconds",
    ]

    @Test func loadJSONIsOneObjectWithExactlyTheDocumentedKeysAndCountsEveryCall() async throws {
        try await withServer([LoopbackRoute("GET", "/ok") { _ in .text("ok") }]) { server in
            let result = try await Self.rebound([
                "load", "--json", "--concurrency", "4", "--requests", "25", server.url("/ok"),
            ])

            #expect(result.status == 0, "stderr:\n\(result.stderrText)")
            #expect(result.stderr.isEmpty, "no progress line off a terminal")
            #expect(result.stdoutText.filter { $0 == "\n" }.count == 1, "one line: \(result.stdoutText)")
            let report = try ReboundCLITests.object(result.stdout)
            #expect(Set(report.keys) == Self.reportKeys)
            #expect(ReboundCLITests.int(report["calls"]) == 25)
            #expect(ReboundCLITests.int(report["succeeded"]) == 25)
            #expect(ReboundCLITests.int(report["failed"]) == 0)
            #expect(ReboundCLITests.int(report["attempts"]) == 25)
            #expect(ReboundCLITests.double(report["amplification"]) == 1)
            #expect(ReboundCLITests.int(report["hedges"]) == 0)
            #expect(Self.counts(report["fastFailed"]) == ["breaker": 0, "rateLimit": 0, "bulkhead": 0])
            #expect((Self.counts(report["failuresByChain"]))?.isEmpty == true)
            #expect((report["breakerTransitions"] as? [Any])?.isEmpty == true)
            let latency = try #require(report["latencySeconds"] as? [String: Any])
            #expect(Set(latency.keys) == ["p50", "p90", "p99"])
            let percentiles = ["p50", "p90", "p99"].map { ReboundCLITests.double(latency[$0]) ?? -1 }
            let (p50, p90, p99) = (percentiles[0], percentiles[1], percentiles[2])
            #expect(0 < p50 && p50 <= p90 && p90 <= p99, "\(latency)")
            #expect(ReboundCLITests.double(report["elapsedSeconds"]).map { $0 >= p99 } == true)
            #expect(server.requests(to: "/ok") == 25)
        }
    }

    /// Each call takes at least the server's delay, so every percentile does: latencies are in
    /// seconds, and the histogram never reports less than a call took.
    @Test func latencyPercentilesAreSecondsAndNeverBelowTheServersDelay() async throws {
        let route = LoopbackRoute("GET", "/slow") { _ in .delayed(.milliseconds(100), .text("ok")) }
        try await withServer([route]) { server in
            let result = try await Self.rebound(
                ["load", "--json", "--concurrency", "5", "--requests", "10", server.url("/slow")])

            #expect(result.status == 0, "stderr:\n\(result.stderrText)")
            let report = try ReboundCLITests.object(result.stdout)
            let latency = try #require(report["latencySeconds"] as? [String: Any])
            let percentiles = ["p50", "p90", "p99"].map { ReboundCLITests.double(latency[$0]) ?? -1 }
            #expect(percentiles.allSatisfy { $0 >= 0.1 }, "\(latency)")
            let elapsed = try #require(ReboundCLITests.double(report["elapsedSeconds"]))
            #expect(percentiles.allSatisfy { $0 <= elapsed }, "\(latency) within \(elapsed) s")
        }
    }

    @Test func anOpenLoopMakesItsCallsAndPrintsTheTable() async throws {
        try await withServer([LoopbackRoute("GET", "/ok") { _ in .text("ok") }]) { server in
            let result = try await Self.rebound(["load", "--rate", "200", "--requests", "20", server.url("/ok")])

            #expect(result.status == 0, "stderr:\n\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.first == "GET \(server.url("/ok"))")
            #expect(lines.contains { $0.hasPrefix("calls") && $0.contains(" 20 ") }, "\(result.stdoutText)")
            #expect(lines.contains { $0.hasPrefix("attempts sent") && $0.contains("amplification 1.000") })
            #expect(lines.contains { $0.hasPrefix("latency") && $0.contains("p99") })
            #expect(server.requests(to: "/ok") == 20)
        }
    }

    /// Every other request fails with a 503 that the pipeline retries: the attempts the tool
    /// counts are those the server received, and their ratio to calls is the amplification.
    @Test func theAttemptsAreTheRequestsTheServerReceivedAndTheirRatioToCallsIsTheAmplification() async throws {
        let served = ReboundCLITests.Guarded(0)
        let route = LoopbackRoute("GET", "/flaky") { _ in
            let number = served.withLock { count -> Int in
                count += 1
                return count
            }
            return number % 2 == 1 ? .respond(status: 503) : .text("ok")
        }
        try await withServer([route]) { server in
            let result = try await Self.rebound(
                ["load", "--json", "--concurrency", "1", "--requests", "30", server.url("/flaky")]
                    + ReboundCLITests.quickRetries)

            let report = try ReboundCLITests.object(result.stdout)
            let calls = try #require(ReboundCLITests.int(report["calls"]))
            let attempts = try #require(ReboundCLITests.int(report["attempts"]))
            #expect(calls == 30)
            #expect(attempts == server.requests(to: "/flaky"))
            #expect(attempts > calls)
            #expect(ReboundCLITests.double(report["amplification"]) == Double(attempts) / Double(calls))
            let failed = try #require(ReboundCLITests.int(report["failed"]))
            #expect(result.status == (failed == 0 ? 0 : 1))
        }
    }

    /// Every fifth answer stalls for 2 s: with --hedge-after the calls that meet one are hedged,
    /// and every hedge is an attempt (no call fails, so none is retried).
    @Test func hedgeAfterHedgesTheStalledCallsAndCountsTheHedges() async throws {
        let served = ReboundCLITests.Guarded(0)
        let route = LoopbackRoute("GET", "/tail") { _ in
            let number = served.withLock { count -> Int in
                count += 1
                return count
            }
            return number % 5 == 1 ? .delayed(.seconds(2), .text("late")) : .text("ok")
        }
        try await withServer([route]) { server in
            let result = try await Self.rebound([
                "load", "--json", "--concurrency", "8", "--requests", "40", "--hedge-after", "0.2", server.url("/tail"),
            ])

            #expect(result.status == 0, "stderr:\n\(result.stderrText)")
            let report = try ReboundCLITests.object(result.stdout)
            let attempts = try #require(ReboundCLITests.int(report["attempts"]))
            let hedges = try #require(ReboundCLITests.int(report["hedges"]))
            #expect(ReboundCLITests.int(report["succeeded"]) == 40)
            // The first answer stalls 2 s, ten times the delay: at least that call was hedged.
            #expect(hedges >= 1 && hedges <= 40)
            #expect(attempts == 40 + hedges)
            // Every request the server received was counted. A hedge cancelled the moment it went
            // out (its call's first answer came just then) is counted and may never reach the
            // server: seen once under the address sanitizer, 54 attempts for 53 requests.
            let received = server.requests(to: "/tail")
            #expect(received <= attempts && attempts - received <= hedges, "\(received) received")
        }
    }

    /// Every call fails: first with its retries spent (`RE1`), then, once the failures have
    /// drained the retry budget all calls share, at their first failure (`RE4`).
    @Test func aServerThatKeepsFailingExitsWith1AndCountsTheFailuresByChain() async throws {
        try await withServer([LoopbackRoute("GET", "/down") { _ in .respond(status: 503) }]) { server in
            let result = try await Self.rebound(
                ["load", "--json", "--concurrency", "1", "--requests", "6", "--max-attempts", "2", server.url("/down")]
                    + ReboundCLITests.quickRetries)

            #expect(result.status == 1)
            let report = try ReboundCLITests.object(result.stdout)
            #expect(ReboundCLITests.int(report["failed"]) == 6)
            let chains = try #require(Self.counts(report["failuresByChain"]))
            #expect(chains.values.reduce(0, +) == 6)
            #expect(chains["AP1-RE1-HT503", default: 0] > 0 && chains["AP1-RE4-HT503", default: 0] > 0, "\(chains)")
            #expect(ReboundCLITests.int(report["attempts"]) == server.requests(to: "/down"))
            #expect(
                ReboundCLITests.int(report["attempts"]) == 2 * chains["AP1-RE1-HT503", default: 0]
                    + chains["AP1-RE4-HT503", default: 0])
        }
    }

    /// Ten failures in a row open the circuit (at least 10 attempts, at least half failed); the
    /// calls after it are refused without reaching the server, within the 5 s break.
    @Test func theBreakerOpensAfterTenFailuresAndRefusesTheRestWithoutSendingThem() async throws {
        try await withServer([LoopbackRoute("GET", "/down") { _ in .respond(status: 503) }]) { server in
            let result = try await Self.rebound(
                ["load", "--json", "--breaker", "--concurrency", "1", "--requests", "40", "--max-attempts", "1"]
                    + [server.url("/down")])

            #expect(result.status == 1)
            let report = try ReboundCLITests.object(result.stdout)
            #expect(ReboundCLITests.int(report["attempts"]) == 10)
            #expect(server.requests(to: "/down") == 10)
            #expect(Self.counts(report["fastFailed"]) == ["breaker": 30, "rateLimit": 0, "bulkhead": 0])
            #expect(Self.counts(report["failuresByChain"]) == ["AP1-HT503": 10, "AP1-RE50": 30])
            let transitions = try #require(report["breakerTransitions"] as? [[String: Any]])
            #expect(transitions.count == 1)
            #expect(transitions.first?["from"] as? String == "closed")
            #expect(transitions.first?["to"] as? String == "open")
            #expect(ReboundCLITests.double(transitions.first?["atSeconds"]).map { $0 >= 0 } == true)

            let table = try await Self.rebound(
                [
                    "load", "--breaker", "--concurrency", "1", "--requests", "12", "--max-attempts", "1",
                    server.url("/down"),
                ])
            #expect(table.stdoutText.contains("breaker 2, rate limit 0, bulkhead 0"), "\(table.stdoutText)")
            #expect(
                table.stdoutText.range(of: #"\n\s+\d+\.\d{3} s\s+closed\s+open\n"#, options: .regularExpression) != nil)
        }
    }

    /// Ten attempts in flight and 64 waiting: of 100 calls started at once against a slow server,
    /// the bulkhead refuses some without sending them.
    @Test func theConcurrencyLimitRefusesWhatItsQueueCannotHold() async throws {
        let route = LoopbackRoute("GET", "/slow") { _ in .delayed(.seconds(1), .text("ok")) }
        try await withServer([route]) { server in
            let result = try await Self.rebound(
                ["load", "--json", "--max-in-flight", "10", "--concurrency", "100", "--requests", "100"]
                    + [server.url("/slow")])

            #expect(result.status == 1)
            let report = try ReboundCLITests.object(result.stdout)
            let fastFailed = try #require(Self.counts(report["fastFailed"]))
            let refused = try #require(fastFailed["bulkhead"])
            #expect(refused > 0)
            #expect(ReboundCLITests.int(report["attempts"]) == server.requests(to: "/slow"))
            let chains = try #require(Self.counts(report["failuresByChain"]))
            #expect(chains["AP1-RE52", default: 0] > 0, "\(chains)")
        }
    }

    @Test(arguments: [
        (["load", "--concurrency", "0", "http://127.0.0.1:1/"], "--concurrency must be from 1 to 1000 (got 0)"),
        (["load", "--concurrency", "1001", "http://127.0.0.1:1/"], "--concurrency must be from 1 to 1000"),
        (["load", "--rate", "0", "http://127.0.0.1:1/"], "--rate must be"),
        (["load", "--rate", "10001", "http://127.0.0.1:1/"], "up to 10000"),
        (["load", "--rate", "nan", "http://127.0.0.1:1/"], "--rate must be"),
        // So low that the second call's time would overflow a Duration.
        (["load", "--rate", "1e-30", "http://127.0.0.1:1/"], "calls per second from 0.000001"),
        (["load", "--concurrency", "5", "--rate", "5", "http://127.0.0.1:1/"], "not both"),
        (["load", "--requests", "0", "http://127.0.0.1:1/"], "--requests must be"),
        (["load", "--requests", "5", "--duration", "1", "http://127.0.0.1:1/"], "not both"),
        (["load", "--duration", "0", "http://127.0.0.1:1/"], "--duration"),
        (["load", "--duration", "1e-10", "http://127.0.0.1:1/"], "--duration 1e-10 rounds to 0"),
        (["load", "--rate-limit", "fixed", "http://127.0.0.1:1/"], "invalid for '--rate-limit <rate-limit>'"),
        (["load", "--max-in-flight", "0", "http://127.0.0.1:1/"], "--max-in-flight must be from 1 to 1000"),
        (["load", "--max-attempts", "0", "http://127.0.0.1:1/"], "--max-attempts"),
        (["load", "--deadline", "0", "http://127.0.0.1:1/"], "--deadline"),
        (["load", "ftp://example.com/file"], "only http and https"),
        (["load", "http://user:secret@example.com/"], "carries credentials"),
        (["load", "--hedge-after", "0", "http://127.0.0.1:1/"], "--hedge-after must be"),
        (["load", "--hedge-after", "61", "http://127.0.0.1:1/"], "--hedge-after must be"),
        (["load", "--hedge-after", "nan", "http://127.0.0.1:1/"], "--hedge-after must be"),
    ])
    func invalidArgumentsExitWith64AndSayWhy(arguments: [String], explanation: String) async throws {
        let result = try await Self.rebound(arguments)

        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.contains(explanation), "stderr:\n\(result.stderrText)")
        #expect(!result.stderrText.contains("secret"))
    }

    // MARK: - Support

    static func rebound(_ arguments: [String]) async throws -> ExecutableRunner.Result {
        try await ReboundCLITests.rebound(arguments)
    }

    func withServer(_ routes: [LoopbackRoute], _ body: (LoopbackServer) async throws -> Void) async throws {
        try await ReboundCLITests().withServer(routes, body)
    }

    /// A JSON object of integers, such as `fastFailed`; `nil` if a value is anything else.
    static func counts(_ value: Any?) -> [String: Int]? {
        guard let object = value as? [String: Any] else { return nil }
        var counts: [String: Int] = [:]
        for (key, value) in object {
            guard let count = ReboundCLITests.int(value) else { return nil }
            counts[key] = count
        }
        return counts
    }
}
