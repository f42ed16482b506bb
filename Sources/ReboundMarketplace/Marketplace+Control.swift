internal import Foundation
import ReboundMockBackend

extension Marketplace {
    /// The failure script as `GET`, `POST` and `DELETE /v1/scenario` send and take it.
    struct ScenarioPayload: Codable {
        /// The run's scenario; in a request, `nil` keeps the current one.
        var scenario: MockScenario?
        /// In a response, the rules still in force; in a request, rules to add after them.
        var rules: [MockFailureRule]?
    }

    private struct ClockPayload: Encodable {
        var offsetSeconds: Double
    }

    /// Answers a control route: stats, the failure script, a full reset, the clock.
    func control(_ route: MarketplaceRoute, _ request: LoopbackRequest) -> APIResponse {
        switch route {
        case .stats:
            return .json(withState { $0.stats })
        case .resetStats:
            withState { $0.stats = MockBackendStats() }
            return .noContent
        case .showScenario:
            return .json(scenarioPayload())
        case .addToScenario:
            return addToScenario(request.body)
        case .clearScenario:
            withState { state in
                state.failurePlan.removeAllRules()
                state.failurePlan.scenario = .none
            }
            return .json(scenarioPayload())
        case .reset:
            reset()
            return .noContent
        case .advanceClock:
            return advanceClock(request)
        default:
            return .error(.internalError, message: "A marketplace route reached the control routes.")
        }
    }

    private func scenarioPayload() -> ScenarioPayload {
        withState { ScenarioPayload(scenario: $0.failurePlan.scenario, rules: $0.failurePlan.rules) }
    }

    /// The most rules `POST /v1/scenario` keeps in force: a script many times longer than any test
    /// needs, so that a client that keeps adding rules gets an error rather than a backend that
    /// scans ever more of them on every request.
    static let maximumRules = 10_000

    /// `POST /v1/scenario`: adds rules and switches the scenario.
    ///
    /// The body is `{"scenario": "flaky:0.5", "rules": [...]}`, either part optional, or a bare list of
    /// rules. Rules are added after those in force; the scenario replaces the current one. Rules
    /// that would make more than ``maximumRules`` in force are refused, and nothing changes.
    private func addToScenario(_ body: [UInt8]) -> APIResponse {
        let data = Data(body)
        let payload: ScenarioPayload
        do {
            if body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
                payload = ScenarioPayload(rules: try JSONDecoder().decode([MockFailureRule].self, from: data))
            } else if body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
                payload = ScenarioPayload()
            } else {
                payload = try JSONDecoder().decode(ScenarioPayload.self, from: data)
            }
        } catch {
            return .error(
                .validationFailure,
                status: 400,
                reason: .invalidFormat,
                field: "rules",
                message: "The script could not be read: \(Self.describe(error))"
            )
        }
        let rules = payload.rules ?? []
        let added = withState { state in
            guard state.failurePlan.rules.count + rules.count <= Self.maximumRules else { return false }
            if let scenario = payload.scenario { state.failurePlan.scenario = scenario }
            state.failurePlan.add(rules)
            return true
        }
        guard added else {
            return .invalid(
                "rules", .valueOutOfBounds,
                "At most \(Self.maximumRules) rules are kept in force; DELETE /v1/scenario removes them.")
        }
        return .json(scenarioPayload())
    }

    /// `POST /v1/clock/advance`: moves the backend's clock ahead, so that tokens expire without waiting.
    ///
    /// The seconds come as `{"seconds": N}` or as `?seconds=N`.
    private func advanceClock(_ request: LoopbackRequest) -> APIResponse {
        var seconds: Double?
        if let text = request.query["seconds"] {
            seconds = Double(text)
        } else if case .object(let fields)? = JSONValue.parse(request.body) {
            seconds = fields["seconds"]?.number
        }
        guard let seconds, seconds.isFinite, seconds >= 0, seconds <= 1e9 else {
            return .invalid("seconds", .valueOutOfBounds, "seconds must be a number from 0 to 1e9.")
        }
        let offset = withState { state in
            state.clockOffset += .milliseconds(Int64((seconds * 1000).rounded()))
            return state.clockOffset
        }
        let (whole, fraction) = offset.components
        return .json(ClockPayload(offsetSeconds: Double(whole) + Double(fraction) / 1e18))
    }

    /// A decoding error in a sentence, without Swift's type names.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context):
            return context.debugDescription
        case DecodingError.keyNotFound(let key, _):
            return "\(key.stringValue) is required."
        default:
            return "the body is not JSON."
        }
    }
}
