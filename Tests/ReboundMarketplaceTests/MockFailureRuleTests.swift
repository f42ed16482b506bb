import Foundation
import HTTPTypes
import ReboundMarketplace
import ReboundMockBackend
import TestSupport
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

    @Test(arguments: [
        (
            #"[{"failure":"stall","times":9223372036854775808}]"#,
            "times must be a whole number from 0 to 9223372036854775807."
        ),
        (#"[{"failure":"stall","times":1e30}]"#, "times must be a whole number from 0 to 9223372036854775807."),
        (#"[{"failure":"stall","times":-1}]"#, "times must be a whole number from 0 to 9223372036854775807."),
        (#"[{"failure":"stall","times":1.5}]"#, "times must be a whole number from 0 to 9223372036854775807."),
        (#"[{"failure":"stall","probability":"half"}]"#, "probability must be a number from 0 to 1."),
    ])
    func anOutOfRangeTriggerIsRejectedNamingTheFieldAndTheRange(body: String, message: String) async throws {
        try await withBackend { client in
            let reply = try await client.send(.post, "/v1/scenario", json: body)
            #expect(reply.status == 400)
            #expect(try reply.error().message == "The script could not be read: \(message)")
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

    /// Probabilities at the edges of what a `Double` holds, in 0…1 and out of it.
    static let probabilities: [Double] = [
        0, 0.1 + 0.2, 0.5, 1, .leastNonzeroMagnitude, -0.0, -1, 1.5, .nan, .infinity, -.infinity,
    ]

    /// Triggers at the edges of what they can hold, in range and out of it.
    static let triggers: [MockFailureRule.Trigger] =
        [.always, .times(1), .times(2), .times(Int.max), .times(0), .times(-1), .times(Int.min)]
        + probabilities.map { .probability($0) }

    /// Every rule the Swift API accepts: each example failure with each trigger, under varied methods and paths.
    static let everyRule: [MockFailureRule] = {
        let methods: [String?] = [nil, "GET", "PATCH", ""]
        let paths = ["**", "/v1/tasks/{id}/answers", "/v1/*", "", "/ü ber/\"quoted\""]
        var rules: [MockFailureRule] = []
        for (failureIndex, failure) in MockFailureSpellingTests.everyFailure.enumerated() {
            for (triggerIndex, trigger) in triggers.enumerated() {
                let index = failureIndex + triggerIndex
                rules.append(
                    MockFailureRule(
                        methods[index % methods.count], paths[index % paths.count], failure: failure, trigger: trigger))
            }
        }
        return rules
    }()

    @Test func everyRuleTheAPIAcceptsIsShownInAFormThatPostingItBackRestores() async throws {
        let original = try await MockBackend.start()
        let copy = try await MockBackend.start()
        original.script(Self.everyRule)

        let shown = try await exchange("GET", "/v1/scenario", port: original.port)
        let posted = try await exchange("POST", "/v1/scenario", body: shown.body, port: copy.port)

        #expect(shown.status == 200)
        #expect(posted.status == 200, "\(String(decoding: posted.body, as: UTF8.self).prefix(500))")
        // A rule with no count left is dropped as it is scripted; every other one is kept.
        let kept = Self.everyRule.filter { rule in
            if case .times(let count) = rule.trigger { return count > 0 }
            return true
        }
        #expect(original.scriptedRules.count == kept.count)
        #expect(copy.scriptedRules == original.scriptedRules)
        try await original.shutdown()
        try await copy.shutdown()
    }

    @Test func everyRuleTheAPIAcceptsReadsBackFromItsJSONAsTheBackendKeepsIt() async throws {
        let backend = try await MockBackend.start()
        for rule in Self.everyRule {
            backend.clearScript()
            backend.script(rule)
            guard let kept = backend.scriptedRules.first else { continue }  // used up: nothing to show
            let decoded = try JSONDecoder().decode(MockFailureRule.self, from: JSONEncoder().encode(rule))
            #expect(decoded == kept, "\(rule)")
            // A rule whose trigger is in range reads back as it is.
            if case .probability(let probability) = rule.trigger, !(0...1).contains(probability) { continue }
            #expect(decoded == rule, "\(rule)")
        }
        try await backend.shutdown()
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

/// Sends one request with `body` that asks the server to close after answering, and returns the
/// status and body of the answer.
private func exchange(_ method: String, _ target: String, body: [UInt8] = [], port: Int) async throws -> (
    status: Int, body: [UInt8]
) {
    let answer = try await onOwnThread {
        let connection = try RawConnection(port: port)
        try connection.send(
            "\(method) \(target) HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n"
        )
        try connection.send(body)
        return try connection.readUntilClosed()
    }
    let parts = answer.components(separatedBy: "\r\n\r\n")
    let status = Int(parts[0].split(separator: " ").dropFirst().first ?? "") ?? 0
    return (status, Array(parts.dropFirst().joined(separator: "\r\n\r\n").utf8))
}
