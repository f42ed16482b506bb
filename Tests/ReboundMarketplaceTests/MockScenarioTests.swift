import Foundation
import HTTPTypes
import ReboundMarketplace
import ReboundMockBackend
import Testing

@Suite struct MockScenarioTests {
    /// The statuses of `count` task-list requests, each exempting nothing, after a login exempted from failures.
    static func taskListStatuses(_ client: MarketplaceClient, count: Int) async throws -> [Int] {
        let login = try await client.send(
            .post,
            "/v1/login",
            json: #"{"username":"alice","password":"wonderland"}"#,
            headers: ["X-Mock-Failure": "none"]
        )
        let token = try login.decode(TokenPair.self).accessToken
        var statuses: [Int] = []
        for _ in 0..<count {
            statuses.append(try await client.get("/v1/tasks", token: token).status)
        }
        return statuses
    }

    @Test func noneFailsNothing() async throws {
        try await withBackend(.init(scenario: .none)) { client async throws in
            #expect(try await Self.taskListStatuses(client, count: 10) == Array(repeating: 200, count: 10))
        }
    }

    @Test func flakyFailsTheSameRequestsForTheSameSeed() async throws {
        let configuration = MockBackend.Configuration(seed: 42, scenario: .flaky(probability: 0.5))
        let first = try await withBackend(configuration) { try await Self.taskListStatuses($0, count: 30) }
        let second = try await withBackend(configuration) { try await Self.taskListStatuses($0, count: 30) }
        #expect(first == second)
        #expect(Set(first) == [200, 503])
        var otherSeed = configuration
        otherSeed.seed = 43
        #expect(try await withBackend(otherSeed) { try await Self.taskListStatuses($0, count: 30) } != first)
    }

    @Test func resetReplaysTheSameSequence() async throws {
        try await withBackend(.init(seed: 9, scenario: .flaky())) { client in
            let first = try await Self.taskListStatuses(client, count: 20)
            let stats = client.backend.stats
            #expect(stats.failuresInjected["temporary"] == first.filter { $0 == 503 }.count)
            let reset = try await client.send(.post, "/v1/reset")
            #expect(reset.status == 204)
            #expect(client.backend.stats == MockBackendStats())
            #expect(try await Self.taskListStatuses(client, count: 20) == first)
            client.backend.reset()
            #expect(try await Self.taskListStatuses(client, count: 20) == first)
        }
    }

    @Test func flakyFailsWithTheTemporaryErrorFormat() async throws {
        try await withBackend(.init(scenario: .flaky(probability: 1))) { client in
            let reply = try await client.get("/v1/tasks")
            #expect(reply.status == 503)
            #expect(try reply.error().code == "temporarily_unavailable")
        }
    }

    @Test func anOutageFailsTheFirstRequestsThenRecovers() async throws {
        try await withBackend(.init(scenario: .outage(requests: 3))) { client in
            var statuses: [Int] = []
            for _ in 0..<5 {
                statuses.append(
                    try await client.send(.post, "/v1/login", json: #"{"username":"bob","password":"builder"}"#).status
                )
            }
            #expect(statuses == [503, 503, 503, 200, 200])
            #expect(client.backend.stats.failuresInjected == ["temporary": 3])
        }
    }

    @Test func rateLimitedLetsABurstThroughThenAnswers429() async throws {
        try await withBackend(.init(scenario: .rateLimited(burst: 2, retryAfterSeconds: 4))) { client in
            var statuses: [Int] = []
            var retryAfters: [String] = []
            for _ in 0..<6 {
                let reply = try await client.get("/v1/nothing")
                statuses.append(reply.status)
                if reply.status == 429 {
                    #expect(try reply.error().code == "rate_limited")
                    retryAfters.append(reply.header("Retry-After") ?? "")
                }
            }
            #expect(statuses == [404, 404, 429, 404, 404, 429])
            #expect(retryAfters == ["4", "4"])
        }
    }

    @Test func aRateLimitOfTheLargestBurstNeverLimitsAndNeverTraps() async throws {
        // Request N is limited when N is a multiple of burst + 1, which Int cannot hold for Int.max.
        try await withBackend(.init(scenario: .rateLimited(burst: .max, retryAfterSeconds: 1))) { client in
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await client.get("/v1/nothing").status) }
            #expect(statuses == [404, 404, 404])
        }
    }

    @Test func expiringTokensOfZeroSecondsPostedOverHTTPExpireEveryTokenAsItIsIssued() async throws {
        try await withBackend { client in
            let posted = try await client.send(.post, "/v1/scenario", json: #"{"scenario":"expiring-tokens:0"}"#)
            #expect(posted.status == 200, "\(posted.text)")
            let tokens = try await client.login()
            #expect(tokens.expiresIn == 0)
            let profile = try await client.get("/v1/profile", token: tokens.accessToken)
            #expect(profile.status == 401)
            #expect(try profile.error().code == "token_expired")
        }
    }

    @Test func controlRoutesAreExemptFromTheScenarioAndUncounted() async throws {
        try await withBackend(.init(scenario: .outage(requests: 100))) { client async throws in
            #expect(try await client.get("/v1/stats").status == 200)
            #expect(try await client.get("/v1/scenario").status == 200)
            #expect(try await client.send(.post, "/v1/stats/reset").status == 204)
            #expect(client.backend.stats.totalRequests == 0)
        }
    }

    @Test func theScenarioCanBeSwitchedInProcessAndOverHTTP() async throws {
        try await withBackend { client in
            client.backend.scenario = .outage(requests: 1)
            #expect(try await client.get("/v1/tasks").status == 503)
            #expect(try await client.get("/v1/tasks").status == 401)

            let posted = try await client.send(.post, "/v1/scenario", json: #"{"scenario":"outage:2"}"#)
            #expect(posted.text == #"{"rules":[],"scenario":"outage:2"}"#)
            #expect(client.backend.scenario == .outage(requests: 2))
            #expect(try await client.get("/v1/tasks").status == 503)
        }
    }

    /// Every scenario the Swift API accepts, by kind, with edge values in each parameter.
    ///
    /// The switch has no `default`, so a new kind of scenario does not compile until it has examples here.
    static func examples(like scenario: MockScenario) -> [MockScenario] {
        let numbers = MockFailureSpellingTests.numbers
        switch scenario {
        case .none:
            return [.none]
        case .flaky:
            return MockFailureRuleTests.probabilities.map { .flaky(probability: $0) }
        case .outage:
            return numbers.map { .outage(requests: $0) }
        case .rateLimited:
            return numbers.map { .rateLimited(burst: $0) }
                + numbers.map { .rateLimited(burst: 2, retryAfterSeconds: $0) }
                + [
                    .rateLimited(burst: .min, retryAfterSeconds: .min),
                    .rateLimited(burst: .max, retryAfterSeconds: .max),
                ]
        case .expiringTokens:
            return numbers.map { .expiringTokens(lifetimeSeconds: $0) }
        }
    }

    /// One scenario of each kind, in the order of ``MockScenario/names``.
    static let oneOfEachKind: [MockScenario] = [.none, .flaky(), .outage(), .rateLimited(), .expiringTokens()]

    static let everyScenario = oneOfEachKind.flatMap(examples(like:))

    /// Whether `scenario` is one that `POST /v1/scenario` takes as it is, rather than as the one that behaves the same.
    static func isInRange(_ scenario: MockScenario) -> Bool {
        switch scenario {
        case .flaky(let probability): (0...1).contains(probability)
        case .outage(let requests): requests >= 0
        case .rateLimited(let burst, _): burst >= 1
        case .none, .expiringTokens: true
        }
    }

    @Test func theExamplesCoverEveryKind() {
        #expect(Self.oneOfEachKind.map(\.name) == MockScenario.names)
        #expect(Set(Self.everyScenario.map(\.name)) == Set(MockScenario.names))
    }

    @Test func everyScenarioTheAPIAcceptsHasASpellingThatReadsBack() throws {
        for scenario in Self.everyScenario {
            let read = MockScenario(scenario.description)
            #expect(read != nil, "\(scenario.description)")
            #expect(read?.description == scenario.description, "\(scenario.description)")
            let decoded = try? JSONDecoder().decode(MockScenario.self, from: JSONEncoder().encode(scenario))
            #expect(decoded == read, "\(scenario.description)")
            if Self.isInRange(scenario) { #expect(read == scenario, "\(scenario.description)") }
        }
    }

    /// What a client meets under the backend's scenario: a login's `expiresIn` and whether its token
    /// works (both exempt from failures), then the status and `Retry-After` of nine requests.
    static func behaviour(of client: MarketplaceClient) async throws -> [String] {
        let login = try await client.send(
            .post,
            "/v1/login",
            json: #"{"username":"alice","password":"wonderland"}"#,
            headers: ["X-Mock-Failure": "none"]
        )
        let tokens = try login.decode(TokenPair.self)
        let profile = try await client.get("/v1/profile", token: tokens.accessToken, failure: "none")
        var seen = ["expiresIn \(tokens.expiresIn)", "profile \(profile.status)"]
        for _ in 0..<9 {
            let reply = try await client.get("/v1/nothing")
            seen.append("\(reply.status) \(reply.header("Retry-After") ?? "-")")
        }
        return seen
    }

    @Test func everyScenarioTheAPIAcceptsIsShownInAFormThatPostingItBackBehavesTheSame() async throws {
        try await withBackend { original in
            let copyBackend = try await MockBackend.start()
            let copy = MarketplaceClient(backend: copyBackend, transport: original.transport)
            for scenario in Self.everyScenario {
                original.backend.reset()
                copyBackend.reset()
                original.backend.scenario = scenario

                let shown = try await original.get("/v1/scenario")
                let posted = try await copy.send(.post, "/v1/scenario", json: shown.text)

                #expect(shown.status == 200, "\(scenario.description): \(shown.text)")
                #expect(posted.status == 200, "\(scenario.description): \(posted.text)")
                let expected = try await Self.behaviour(of: original)
                #expect(try await Self.behaviour(of: copy) == expected, "\(scenario.description)")
            }
            try await copyBackend.shutdown()
        }
    }

    @Test(arguments: [
        ("none", MockScenario.none),
        ("flaky", .flaky(probability: 0.3)),
        ("flaky:0.5", .flaky(probability: 0.5)),
        ("outage", .outage(requests: 5)),
        ("outage:0", .outage(requests: 0)),
        ("rate-limited", .rateLimited(burst: 5, retryAfterSeconds: 1)),
        ("rate-limited:3:2", .rateLimited(burst: 3, retryAfterSeconds: 2)),
        ("expiring-tokens", .expiringTokens(lifetimeSeconds: 5)),
        ("expiring-tokens:1", .expiringTokens(lifetimeSeconds: 1)),
        // Any Int, as the Swift API takes any Int; what has no equivalent in range means itself.
        ("outage:9223372036854775807", .outage(requests: .max)),
        ("rate-limited:1000000001:-1", .rateLimited(burst: 1_000_000_001, retryAfterSeconds: -1)),
        ("expiring-tokens:0", .expiringTokens(lifetimeSeconds: 0)),
        ("expiring-tokens:-5", .expiringTokens(lifetimeSeconds: -5)),
    ])
    func scenariosReadFromTheirNames(spelling: String, scenario: MockScenario) {
        #expect(MockScenario(spelling) == scenario)
        #expect(MockScenario(scenario.description) == scenario)
        #expect(MockScenario.names.contains(scenario.name))
    }

    /// Out-of-range values are refused: the Swift API's are shown as the in-range ones that behave the same.
    @Test(arguments: [
        "", "flaky:2", "flaky:x", "flaky:-1", "flaky:nan", "flaky:inf", "outage:-1", "outage:9223372036854775808",
        "rate-limited:0", "rate-limited:-1", "rate-limited:1:", "rate-limited:1:x", "rate-limited:1:2:3",
        "expiring-tokens:", "expiring-tokens:x", "none:1", "chaos",
    ])
    func unknownScenariosAreRejected(spelling: String) {
        #expect(MockScenario(spelling) == nil)
    }
}
