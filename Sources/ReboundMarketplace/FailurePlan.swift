import ReboundMockBackend

/// Decides which requests get an injected failure, from the per-route rules and the run's scenario.
///
/// The header `X-Mock-Failure` is read before the plan is asked, and bypasses it. The plan then asks
/// its rules in order and, if none fires, the scenario. Only a probability draws from the generator,
/// so adding a rule with a count does not shift which requests a flaky run fails later.
struct FailurePlan: Sendable {
    /// The failure pattern of the run.
    var scenario: MockScenario {
        didSet { scenarioRequests = 0 }
    }
    /// The scripted rules, in the order they were added; used-up rules are removed.
    private(set) var rules: [MockFailureRule] = []
    /// The seeded source of every probability draw.
    private var generator: SplitMix64
    /// Requests the scenario was asked about since it was set, for `outage` and `rate-limited`.
    private var scenarioRequests = 0

    init(scenario: MockScenario, seed: UInt64) {
        self.scenario = scenario
        generator = SplitMix64(seed: seed)
    }

    /// Adds rules after the existing ones, each with its trigger normalized (``MockFailureRule/Trigger/normalized``),
    /// which behaves the same and reads back from JSON; a rule whose count is used up is dropped.
    mutating func add(_ newRules: [MockFailureRule]) {
        for var rule in newRules {
            rule.trigger = rule.trigger.normalized
            if case .times(let count) = rule.trigger, count == 0 { continue }
            rules.append(rule)
        }
    }

    /// Removes every rule.
    mutating func removeAllRules() {
        rules.removeAll()
    }

    /// The failure to inject into a request, if any, using up a rule's count if one fires.
    mutating func failure(method: String, path: String) -> MockFailure? {
        for index in rules.indices where rules[index].matches(method: method, path: path) {
            switch rules[index].trigger {
            case .always:
                return rules[index].failure
            case .times(let count):
                let failure = rules[index].failure
                if count <= 1 {
                    rules.remove(at: index)
                } else {
                    rules[index].trigger = .times(count - 1)
                }
                return failure
            case .probability(let probability):
                if generator.nextUnitInterval() < probability {
                    return rules[index].failure
                }
            }
        }
        return scenarioFailure()
    }

    private mutating func scenarioFailure() -> MockFailure? {
        scenarioRequests += 1
        switch scenario {
        case .none, .expiringTokens:
            return nil
        case .flaky(let probability):
            return generator.nextUnitInterval() < probability ? .temporary(status: 503) : nil
        case .outage(let requests):
            return scenarioRequests <= requests ? .temporary(status: 503) : nil
        case .rateLimited(let burst, let retryAfter):
            // Requests 1…burst pass, burst+1 is limited, and so on. A limited request comes after a
            // whole burst, so asking that first keeps burst + 1 from overflowing for a burst of Int.max.
            let burst = max(1, burst)
            let limited = scenarioRequests > burst && scenarioRequests % (burst + 1) == 0
            return limited ? .rateLimited(retryAfter: .seconds(retryAfter)) : nil
        }
    }
}
