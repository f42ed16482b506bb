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
}
