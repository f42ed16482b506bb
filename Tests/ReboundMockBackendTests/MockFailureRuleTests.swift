import Foundation
import HTTPTypes
import ReboundMockBackend
import Testing

@Suite struct MockFailureRuleTests {
    @Test func theNextTwoTaskListsAnswer503WithRetryAfterThenTheRuleIsUsedUp() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            client.backend.script(
                MockFailureRule(
                    "GET",
                    "/v1/tasks",
                    failure: .temporary(status: 503, retryAfter: .seconds(1)),
                    trigger: .times(2)
                )
            )
            var statuses: [Int] = []
            for _ in 0..<3 {
                let reply = try await client.get("/v1/tasks", token: token)
                statuses.append(reply.status)
                if reply.status == 503 { #expect(reply.header("Retry-After") == "1") }
            }
            #expect(statuses == [503, 503, 200])
            #expect(client.backend.scriptedRules.isEmpty)
            #expect(client.backend.stats.failuresInjected == ["temporary": 2])
        }
    }

    @Test func aRuleFailsOnlyItsMethodAndPath() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            client.backend.script(
                MockFailureRule("POST", "/v1/tasks/{id}/answers", failure: .rateLimited(), trigger: .always)
            )
            #expect(try await client.get("/v1/tasks", token: token).status == 200)
            #expect(try await client.get("/v1/tasks/1", token: token).status == 200)
            #expect(try await client.submit("cat", to: 1, token: token).status == 429)
            #expect(try await client.submit("cat", to: 2, token: token).status == 429)
            #expect(client.backend.scriptedRules.count == 1)
            client.backend.clearScript()
            #expect(try await client.submit("cat", to: 2, token: token).status == 201)
        }
    }

    @Test func theFirstMatchingRuleWinsAndTheHeaderBeatsThemAll() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            client.backend.script(
                MockFailureRule("GET", "/v1/**", failure: .temporary(status: 502), trigger: .times(1)),
                MockFailureRule(nil, "**", failure: .temporary(status: 504), trigger: .times(1))
            )
            #expect(try await client.get("/v1/profile", token: token, failure: "rate-limited").status == 429)
            #expect(try await client.get("/v1/profile", token: token).status == 502)
            #expect(try await client.get("/v1/profile", token: token).status == 504)
            #expect(try await client.get("/v1/profile", token: token).status == 200)
        }
    }

    @Test(arguments: [
        ("/v1/tasks", "/v1/tasks", true),
        ("/v1/tasks", "/v1/tasks/1", false),
        ("/v1/tasks/{id}", "/v1/tasks/1", true),
        ("/v1/tasks/*", "/v1/tasks", false),
        ("/v1/tasks/{id}/answers", "/v1/tasks/12/answers", true),
        ("/v1/tasks/{id}/answers", "/v1/tasks/12", false),
        ("/v1/**", "/v1/tasks/12/answers", true),
        ("/v1/**", "/v1", true),
        ("**", "/v1/login", true),
        ("/v2/**", "/v1/login", false),
    ])
    func pathPatternsMatchSegmentBySegment(pattern: String, path: String, matches: Bool) {
        let rule = MockFailureRule(pattern, failure: .stall)
        #expect(rule.matches(method: "GET", path: path) == matches)
    }

    @Test func aGetRuleAlsoMatchesHeadButNotPost() {
        let rule = MockFailureRule("GET", "/v1/tasks", failure: .stall)
        #expect(rule.matches(method: "HEAD", path: "/v1/tasks"))
        #expect(!rule.matches(method: "POST", path: "/v1/tasks"))
    }

    @Test func rulesAreScriptedShownAndClearedOverHTTP() async throws {
        try await withBackend { client in
            let token = try await client.accessToken()
            let posted = try await client.send(
                .post,
                "/v1/scenario",
                json: #"{"rules":[{"method":"GET","path":"/v1/tasks","failure":"retry-after-1","times":2}]}"#
            )
            #expect(posted.status == 200)
            #expect(try await client.get("/v1/tasks", token: token).status == 503)
            let shown = try await client.get("/v1/scenario")
            #expect(
                shown.text
                    == #"{"rules":[{"failure":"temporary-503-retry-after-1","method":"GET","path":"/v1/tasks","times":1}],"scenario":"none"}"#
            )
            // A bare list of rules is added after the rules in force.
            _ = try await client.send(.post, "/v1/scenario", json: #"[{"path":"/v1/profile","failure":"stall"}]"#)
            #expect(client.backend.scriptedRules.count == 2)
            #expect(
                client.backend.scriptedRules[1] == MockFailureRule("/v1/profile", failure: .stall, trigger: .always))

            let cleared = try await client.send(.delete, "/v1/scenario")
            #expect(cleared.text == #"{"rules":[],"scenario":"none"}"#)
            #expect(try await client.get("/v1/tasks", token: token).status == 200)
        }
    }

    @Test(arguments: [
        #"[{"failure":"explode"}]"#,
        #"[{"path":"/v1/tasks"}]"#,
        #"[{"failure":"stall","times":1,"probability":0.5}]"#,
        #"[{"failure":"stall","probability":1.5}]"#,
        #"{"scenario":"sometimes"}"#,
        "not json",
    ])
    func anUnreadableScriptIsRejectedAndChangesNothing(body: String) async throws {
        try await withBackend { client in
            let reply = try await client.send(.post, "/v1/scenario", json: body)
            #expect(reply.status == 400)
            #expect(try reply.error().code == "validation_failure")
            #expect(try reply.error().reason == "invalid_format")
            #expect(client.backend.scriptedRules.isEmpty)
        }
    }

    @Test func probabilityRulesFollowTheSeed() async throws {
        func statuses(seed: UInt64) async throws -> [Int] {
            try await withBackend(.init(seed: seed)) { client in
                let token = try await client.accessToken()
                client.backend.script(
                    MockFailureRule("GET", "/v1/tasks/{id}", failure: .temporary(), trigger: .probability(0.5)))
                var statuses: [Int] = []
                for _ in 0..<24 { statuses.append(try await client.get("/v1/tasks/1", token: token).status) }
                return statuses
            }
        }
        let first = try await statuses(seed: 3)
        #expect(first.contains(503) && first.contains(200))
        #expect(try await statuses(seed: 3) == first)
        #expect(try await statuses(seed: 4) != first)
    }

    @Test func rulesRoundTripThroughJSON() throws {
        let rules = [
            MockFailureRule("GET", "/v1/tasks", failure: .temporary(status: 504, retryAfter: .date(secondsFromNow: 3))),
            MockFailureRule(nil, "**", failure: .slow(milliseconds: 10), trigger: .probability(0.25)),
            MockFailureRule(
                "POST", "/v1/login", failure: .validation(field: "username", reason: .tooShort), trigger: .always),
        ]
        let data = try JSONEncoder().encode(rules)
        #expect(try JSONDecoder().decode([MockFailureRule].self, from: data) == rules)
    }
}
