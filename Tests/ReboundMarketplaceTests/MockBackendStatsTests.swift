import Foundation
import HTTPTypes
import ReboundMarketplace
import ReboundMockBackend
import Testing

@Suite struct MockBackendStatsTests {
    @Test func theStatsCountWhatTheServerSawInProcessAndOverHTTP() async throws {
        try await withBackend(.init(captchaAfter: 1)) { client in
            let pair = try await client.login()
            _ = try await client.send(.post, "/v1/login", json: #"{"username":"alice","password":"nope"}"#)
            let refreshed = try await client.send(
                .post,
                "/v1/token/refresh",
                json: #"{"refreshToken":"\#(pair.refreshToken)"}"#
            )
            let token = try refreshed.decode(TokenPair.self).accessToken
            _ = try await client.get("/v1/tasks", token: token)
            _ = try await client.get("/v1/tasks/2", token: token, failure: "temporary-503")
            _ = try await client.submit("cat", to: 1, token: token, key: "a")
            _ = try await client.submit("cat", to: 1, token: token, key: "a")
            let captcha = try #require(try await client.submit("dog", to: 2, token: token).error().captcha)
            let answer = try MockBackendCaptchaTests.solve(captcha.question)
            _ = try await client.send(
                .post,
                "/v1/captcha/verify",
                json: #"{"id":"\#(captcha.id)","answer":"\#(answer)"}"#,
                token: token
            )

            let expected = MockBackendStats(
                requestsPerRoute: [
                    "POST /v1/login": 2,
                    "POST /v1/token/refresh": 1,
                    "GET /v1/tasks": 1,
                    "GET /v1/tasks/{id}": 1,
                    "POST /v1/tasks/{id}/answers": 3,
                    "POST /v1/captcha/verify": 1,
                ],
                logins: 1,
                refreshes: 1,
                captchasIssued: 1,
                captchasSolved: 1,
                duplicateSubmissions: 1,
                answersApplied: 1,
                failuresInjected: ["temporary": 1]
            )
            #expect(client.backend.stats == expected)
            #expect(try await client.get("/v1/stats").decode(MockBackendStats.self) == expected)
            #expect(expected.totalRequests == 9)
            #expect(expected.requests(to: "POST /v1/tasks/{id}/answers") == 3)
        }
    }

    @Test func routesBeyondTheTrackedOnesAreCountedTogetherInProcessAndOverHTTP() async throws {
        try await withBackend(limits: .init(maxTrackedPaths: 3)) { client in
            let token = try await client.accessToken()
            _ = try await client.get("/v1/tasks", token: token)
            for number in 1...4 {
                _ = try await client.get("/v1/nothing/\(number)")
            }
            _ = try await client.get("/v1/tasks", token: token)

            let expected = MockBackendStats(
                requestsPerRoute: ["POST /v1/login": 1, "GET /v1/tasks": 2, "GET /v1/nothing/1": 1],
                logins: 1,
                requestsToUntrackedRoutes: 3
            )
            #expect(client.backend.stats == expected)
            #expect(client.backend.stats.totalRequests == 7)
            let overHTTP = try await client.get("/v1/stats")
            #expect(overHTTP.text.contains(#""requestsToUntrackedRoutes":3"#))
            #expect(try overHTTP.decode(MockBackendStats.self) == expected)

            client.backend.resetStats()
            #expect(client.backend.stats == MockBackendStats())
        }
    }

    @Test func routesLongerThanTheTrackedLengthAreCountedTogether() async throws {
        try await withBackend { client in
            // "GET " and the path make the longest route tracked one by one.
            let longest = "/v1/" + String(repeating: "a", count: LoopbackServer.Limits.maximumTrackedPathLength - 8)
            let tooLong = longest + "b"
            _ = try await client.get(longest)
            _ = try await client.get(tooLong)
            _ = try await client.get(tooLong)

            let expected = MockBackendStats(requestsPerRoute: ["GET \(longest)": 1], requestsToUntrackedRoutes: 2)
            #expect(client.backend.stats == expected)
            #expect(try await client.get("/v1/stats").decode(MockBackendStats.self) == expected)
        }
    }

    @Test func theStatsResetInProcessAndOverHTTPWithoutTouchingTheState() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            _ = try await client.submit("cat", token: token)
            client.backend.resetStats()
            #expect(client.backend.stats == MockBackendStats())
            _ = try await client.get("/v1/profile", token: token)
            #expect(client.backend.stats.totalRequests == 1)
            #expect(try await client.send(.post, "/v1/stats/reset").status == 204)
            #expect(client.backend.stats == MockBackendStats())
            #expect(try await client.get("/v1/profile", token: token).decode(Profile.self).answers == 1)
        }
    }

    @Test func aFullResetForgetsTokensAndAnswers() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            _ = try await client.submit("cat", token: token)
            client.backend.script(MockFailureRule("/v1/profile", failure: .stall, trigger: .always))
            client.backend.reset()
            #expect(client.backend.scriptedRules.isEmpty)
            #expect(try await client.get("/v1/profile", token: token).error().code == "unauthorized")
            let fresh = try await client.accessToken()
            #expect(try await client.get("/v1/profile", token: fresh).decode(Profile.self).answers == 0)
        }
    }
}
