/// Runs one operation per key at a time, and gives its result to every caller that asked for the
/// same key meanwhile.
///
/// The first caller for a key starts the operation in a task of its own; callers that come while
/// it runs wait for the same result, and the key is free again once the result is delivered. A
/// caller that comes after that starts a new operation, so an operation must check for itself
/// whether its work is still needed (a credential may have been replaced meanwhile, a captcha
/// solved).
///
/// ```
///  caller 1 ──► run(k) ──► starts operation(k) ─────────────┐
///  caller 2 ──► run(k) ──► waits ───────────────────────────┤ result
///  caller 3 ──► run(k) ──► waits ──► cancelled: leaves      │ to every
///                                    (CancellationError)    ▼ waiter left
/// ```
///
/// A waiter whose task is cancelled stops waiting at once and throws `CancellationError`. The
/// operation goes on for the others, and even with no waiter left: what it produces (a new
/// credential, an accepted captcha) is still worth having, and stopping it halfway could leave
/// the backend and the store disagreeing.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct State {
        /// The running operations, each with its waiters by id.
        var flights: [Key: [Int: Waiter]] = [:]
        /// Callers between taking an id and joining a flight, and whether they were cancelled
        /// in that gap.
        var joining: [Int: Bool] = [:]
        var nextID = 0
    }

    /// What a caller does once it has its continuation.
    private enum Join { case start, wait, cancelled }

    private let state = Locked(State())

    /// Returns the result of `operation` for `key`, running it only if no run for `key` is under way.
    ///
    /// - Throws: What `operation` threw, or `CancellationError` when this caller's task is cancelled.
    func run(_ key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.joining[state.nextID] = false
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let join = state.withLock { state -> Join in
                    if state.joining.removeValue(forKey: id) == true { return .cancelled }
                    if state.flights[key] != nil {
                        state.flights[key]![id] = waiter
                        return .wait
                    }
                    state.flights[key] = [id: waiter]
                    return .start
                }
                switch join {
                case .cancelled: waiter.resume(throwing: CancellationError())
                case .wait: break
                case .start: Task { await self.fly(key, operation) }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if state.joining[id] != nil {
                    state.joining[id] = true
                    return nil
                }
                return state.flights[key]?.removeValue(forKey: id)
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// How many callers are waiting for `key` (for tests and diagnostics).
    func waiterCount(for key: Key) -> Int {
        state.withLock { $0.flights[key]?.count ?? 0 }
    }

    private func fly(_ key: Key, _ operation: @Sendable () async throws -> Value) async {
        let result: Result<Value, any Error>
        do {
            result = .success(try await operation())
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { $0.flights.removeValue(forKey: key) ?? [:] }
        for waiter in waiters.values { waiter.resume(with: result) }
    }
}
