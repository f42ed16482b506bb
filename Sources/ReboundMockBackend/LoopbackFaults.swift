import NIOConcurrencyHelpers

/// The faults a ``LoopbackServer`` injects: its rules, asked in order for every request.
///
/// Every server has one, ``LoopbackServer/faults``, empty at start. The first rule that selects a
/// request and whose trigger fires decides its fault; a request no rule hits gets its route's reply.
/// The choice is made when the server starts answering the request, so requests sent one at a time
/// meet the rules in the order they were sent. Rules can be added and removed while the server runs.
public final class LoopbackFaults: Sendable {
    private struct State {
        var rules: [LoopbackFaultRule] = []
        var generator: SplitMix64
        var injected: [String: Int] = [:]
    }

    private let state: NIOLockedValueBox<State>

    init(seed: UInt64 = 1) {
        state = NIOLockedValueBox(State(generator: SplitMix64(seed: seed)))
    }

    /// Adds `rules` after the ones in force; a rule with a count used up is dropped.
    public func inject(_ rules: [LoopbackFaultRule]) {
        state.withLockedValue { state in
            for rule in rules {
                if case .times(let count) = rule.trigger, count <= 0 { continue }
                state.rules.append(rule)
            }
        }
    }

    /// Adds `rules` after the ones in force; a rule with a count used up is dropped.
    public func inject(_ rules: LoopbackFaultRule...) {
        inject(rules)
    }

    /// The rules in force, in the order they are asked, counts as far as they are used.
    public var rules: [LoopbackFaultRule] {
        state.withLockedValue { $0.rules }
    }

    /// How many requests got each fault, by its ``LoopbackFault/description``.
    public var injected: [String: Int] {
        state.withLockedValue { $0.injected }
    }

    /// Removes every rule, zeroes ``injected`` and starts the generator over from `seed`.
    public func reset(seed: UInt64 = 1) {
        state.withLockedValue { $0 = State(generator: SplitMix64(seed: seed)) }
    }

    /// The fault `request` gets, if any, using up a count if a rule with one fires.
    func fault(for request: LoopbackRequest) -> LoopbackFault? {
        state.withLockedValue { state in
            for index in state.rules.indices where state.rules[index].selects(request) {
                let rule = state.rules[index]
                switch rule.trigger {
                case .always:
                    break
                case .times(let count):
                    if count <= 1 {
                        state.rules.remove(at: index)
                    } else {
                        state.rules[index].trigger = .times(count - 1)
                    }
                case .probability(let probability):
                    guard state.generator.nextUnitInterval() < probability else { continue }
                }
                state.injected[rule.fault.description, default: 0] += 1
                return rule.fault
            }
            return nil
        }
    }
}
