import Foundation
import HTTPTypes
import ReboundMarketplace
import ReboundMockBackend
import Testing

@Suite struct MockBackendAuthTests {
    @Test func loginReturnsABearerPairThatLivesTheConfiguredLifetime() async throws {
        try await withBackend(.init(tokenLifetime: .seconds(120))) { client in
            let pair = try await client.login()
            #expect(pair.tokenType == "Bearer")
            #expect(pair.expiresIn == 120)
            #expect(pair.accessToken.hasPrefix("at-"))
            #expect(pair.refreshToken.hasPrefix("rt-"))
            #expect(pair.accessToken != pair.refreshToken)
            let profile = try await client.get("/v1/profile", token: pair.accessToken)
            #expect(profile.status == 200)
            #expect(try profile.decode(Profile.self) == Profile(id: 1, username: "alice", balance: 0, answers: 0))
        }
    }

    @Test(arguments: [
        (Duration.seconds(100), 100), (.seconds(100) + .nanoseconds(1), 101),
        (.seconds(Int64.max) + .milliseconds(500), Int.max),
    ])
    func expiresInIsTheLifetimeInWholeSecondsRoundedUpWithoutOverflowing(lifetime: Duration, expected: Int)
        async throws
    {
        try await withBackend(.init(tokenLifetime: lifetime)) { client in
            let pair = try await client.login()
            #expect(pair.expiresIn == expected)
            #expect(try await client.get("/v1/profile", token: pair.accessToken).status == 200)
        }
    }

    @Test(arguments: [("alice", "builder"), ("carol", "wonderland")])
    func aWrongPasswordOrUnknownUserIsInvalidCredentials(username: String, password: String) async throws {
        try await withBackend { client in
            let reply = try await client.send(
                .post,
                "/v1/login",
                json: #"{"username":"\#(username)","password":"\#(password)"}"#
            )
            #expect(reply.status == 401)
            #expect(try reply.error().code == "invalid_credentials")
            #expect(client.backend.stats.logins == 0)
        }
    }

    @Test func aLoginWithoutAPasswordIsAMissingValueAndABodyThatIsNotJSONIsInvalidFormat() async throws {
        try await withBackend { client in
            let missing = try await client.send(.post, "/v1/login", json: #"{"username":"alice"}"#)
            #expect(missing.status == 422)
            #expect(
                try missing.error()
                    == ErrorBody(
                        code: "validation_failure",
                        reason: "missing_value",
                        message: "password is required.",
                        field: "password"
                    )
            )
            let notJSON = try await client.send(.post, "/v1/login", json: "username=alice")
            #expect(notJSON.status == 400)
            #expect(try notJSON.error().code == "validation_failure")
            #expect(try notJSON.error().reason == "invalid_format")
        }
    }

    @Test func aRefreshTokenRotatesAndWorksOnlyOnce() async throws {
        try await withBackend { client in
            let first = try await client.login()
            let refreshed = try await client.send(
                .post,
                "/v1/token/refresh",
                json: #"{"refreshToken":"\#(first.refreshToken)"}"#
            )
            #expect(refreshed.status == 200)
            let second = try refreshed.decode(TokenPair.self)
            #expect(second.refreshToken != first.refreshToken)
            #expect(second.accessToken != first.accessToken)
            #expect(try await client.get("/v1/tasks", token: second.accessToken).status == 200)

            let reused = try await client.send(
                .post,
                "/v1/token/refresh",
                json: #"{"refreshToken":"\#(first.refreshToken)"}"#
            )
            #expect(reused.status == 401)
            #expect(try reused.error().code == "invalid_token")

            let unknown = try await client.send(.post, "/v1/token/refresh", json: #"{"refreshToken":"rt-nope"}"#)
            #expect(try unknown.error().code == "invalid_token")
            #expect(client.backend.stats.refreshes == 1)
        }
    }

    @Test(arguments: [nil, "not-a-token", ""])
    func aMissingOrUnknownAccessTokenIsUnauthorized(token: String?) async throws {
        try await withBackend { client in
            for target in ["/v1/tasks", "/v1/tasks/1", "/v1/profile"] {
                let reply = try await client.get(target, token: token)
                #expect(reply.status == 401)
                #expect(try reply.error().code == "unauthorized")
                #expect(reply.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
            let answer = try await client.submit("yes", token: token ?? "")
            #expect(try answer.error().code == "unauthorized")
            let verify = try await client.send(.post, "/v1/captcha/verify", json: #"{"id":"c-1","answer":"7"}"#)
            #expect(try verify.error().code == "unauthorized")
        }
    }

    @Test func anAccessTokenExpiresWhenTheClockPassesItsLifetimeAndRefreshingRecovers() async throws {
        try await withBackend(.init(tokenLifetime: .seconds(300))) { client in
            let pair = try await client.login()
            // The backend's clock also runs in real time: leave a margin for a slow machine.
            client.backend.advanceClock(by: .seconds(280))
            #expect(try await client.get("/v1/tasks", token: pair.accessToken).status == 200)
            client.backend.advanceClock(by: .seconds(20))
            let expired = try await client.get("/v1/tasks", token: pair.accessToken)
            #expect(expired.status == 401)
            #expect(try expired.error().code == "token_expired")

            let refreshed = try await client.send(
                .post,
                "/v1/token/refresh",
                json: #"{"refreshToken":"\#(pair.refreshToken)"}"#
            )
            let fresh = try refreshed.decode(TokenPair.self)
            #expect(try await client.get("/v1/tasks", token: fresh.accessToken).status == 200)
        }
    }

    @Test func theClockCanBeAdvancedOverHTTP() async throws {
        try await withBackend(.init(tokenLifetime: .seconds(60))) { client in
            let token = try await client.accessToken()
            let advanced = try await client.send(.post, "/v1/clock/advance", json: #"{"seconds":30}"#)
            #expect(advanced.text == #"{"offsetSeconds":30}"#)
            #expect(try await client.get("/v1/profile", token: token).status == 200)
            _ = try await client.send(.post, "/v1/clock/advance?seconds=30")
            #expect(try await client.get("/v1/profile", token: token).error().code == "token_expired")
            let negative = try await client.send(.post, "/v1/clock/advance", json: #"{"seconds":-1}"#)
            #expect(negative.status == 422)
        }
    }

    @Test func theExpiringTokensScenarioShortensTheLifetime() async throws {
        try await withBackend(.init(scenario: .expiringTokens(lifetimeSeconds: 2))) { client in
            let pair = try await client.login()
            #expect(pair.expiresIn == 2)
            client.backend.advanceClock(by: .seconds(2))
            #expect(try await client.get("/v1/tasks", token: pair.accessToken).error().code == "token_expired")
        }
    }

    @Test func tokensAreFixedByTheSeed() async throws {
        func tokens(seed: UInt64) async throws -> [String] {
            try await withBackend(.init(seed: seed)) { client in
                let pair = try await client.login()
                return [pair.accessToken, pair.refreshToken]
            }
        }
        let first = try await tokens(seed: 5)
        #expect(try await tokens(seed: 5) == first)
        #expect(try await tokens(seed: 6) != first)
    }
}
