import Rebound

/// A one-way gate: tasks wait until it opens, without polling.
final class Gate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Yields until `condition` holds, giving up after many yields or when cancelled (never sleeping).
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1_000_000 {
        if condition() { return true }
        if Task.isCancelled { break }
        await Task.yield()
    }
    return condition()
}

extension RecoveryDecision {
    var isRetryNow: Bool {
        guard case .didHandle(let plan) = self else { return false }
        return plan.delay == .zero && plan.request == nil
    }

    var isCannotHandle: Bool {
        if case .cannotHandle = self { return true }
        return false
    }
}
