import HTTPTypes
import ReboundMarketplace
import ReboundMockBackend
import TestSupport
import Testing

/// The mock backend against settings and scripted failures it cannot honour as given.
@Suite struct MockBackendLimitsTests {
    @Test(arguments: [
        (-1, LoopbackServer.Limits.default), (0, LoopbackServer.Limits(maxRequestBodySize: -1)),
        (0, LoopbackServer.Limits(idleTimeout: .zero)),
    ])
    func settingsTheLoopbackServerRefusesAreRefused(port: Int, limits: LoopbackServer.Limits) async {
        await #expect(throws: LoopbackServer.ConfigurationError.self) {
            let backend = try await MockBackend.start(port: port, limits: limits)
            try await backend.shutdown()
        }
    }

    @Test func aFailureRuleWithANegativeStatusGets500InsteadOfCrashingTheServer() async throws {
        let backend = try await MockBackend.start()
        backend.script(MockFailureRule("**", failure: .temporary(status: -3), trigger: .always))

        let answer = try await exchange("/v1/tasks", port: backend.port)

        #expect(answer.hasPrefix("HTTP/1.1 500 "))
        try await backend.shutdown()
    }

    @Test func aRetryAfterDateFurtherThanAnyHTTPDateIsTheLastDateOfYear9999() async throws {
        let backend = try await MockBackend.start()
        backend.script(
            MockFailureRule(
                "**", failure: .temporary(status: 503, retryAfter: .date(secondsFromNow: Int.max)), trigger: .always)
        )

        let answer = try await exchange("/v1/tasks", port: backend.port)

        #expect(answer.hasPrefix("HTTP/1.1 503 "))
        #expect(answer.contains("Retry-After: Fri, 31 Dec 9999 23:59:59 GMT\r\n"))
        try await backend.shutdown()
    }

    /// Tokens are kept up to `maxRecords`: past it the older half is forgotten, and a forgotten
    /// token is refused as unknown, as one the backend never issued.
    @Test func tokensBeyondMaxRecordsForgetTheOldestHalf() async throws {
        try await withBackend(.init(maxRecords: 4)) { client in
            var pairs: [TokenPair] = []
            for _ in 0..<5 { pairs.append(try await client.login()) }
            let first = try await client.get("/v1/profile", token: pairs[0].accessToken)
            #expect(first.status == 401)
            #expect(try first.error().message == "The access token is unknown. Log in again.")
            #expect(try await client.get("/v1/profile", token: pairs[4].accessToken).status == 200)
            let stale = try await client.send(
                .post, "/v1/token/refresh", json: #"{"refreshToken":"\#(pairs[0].refreshToken)"}"#)
            #expect(stale.status == 401)
            let kept = try await client.send(
                .post, "/v1/token/refresh", json: #"{"refreshToken":"\#(pairs[4].refreshToken)"}"#)
            #expect(kept.status == 200)
        }
    }

    /// `POST /v1/scenario` keeps at most 10,000 rules in force; rules past that are refused whole.
    @Test func moreRulesThanTheScenarioKeepsAreRefusedWholeOverHTTP() async throws {
        try await withBackend { client in
            let rule = MockFailureRule("/v1/profile", failure: .stall, trigger: .times(1))
            client.backend.script(Array(repeating: rule, count: 9_999))
            let one = #"{"path":"/v1/profile","failure":"stall","times":1}"#
            let refused = try await client.send(.post, "/v1/scenario", json: "[\(one),\(one)]")
            #expect(refused.status == 422)
            #expect(try refused.error().field == "rules")
            #expect(client.backend.scriptedRules.count == 9_999)
            #expect(try await client.send(.post, "/v1/scenario", json: "[\(one)]").status == 200)
            #expect(try await client.send(.post, "/v1/scenario", json: "[\(one)]").status == 422)
            #expect(client.backend.scriptedRules.count == 10_000)
        }
    }
}
