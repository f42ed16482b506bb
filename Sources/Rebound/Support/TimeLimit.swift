/// Runs an operation, but stops waiting for it when a time limit passes first.
///
/// The operation runs in a task of its own. When the limit passes (or the waiting task is
/// cancelled), the waiter leaves at once and the operation's task is cancelled; an operation
/// that does not heed cancellation finishes on its own later, and its result is dropped. That is
/// what bounds a recovery handler the pipeline cannot trust to watch the clock: a credential
/// refresh that never answers, a person who never solves a captcha.
///
/// ```
///  waiter ──► run ──► operation task ─────────────── result ──┐
///                 └─► timer task ── limit passed ── nil ──────┤ first one wins;
///  cancelled ─────────────────────── CancellationError ───────┘ both tasks cancelled
/// ```
enum TimeLimit {
    /// The operation's result, or `nil` when `limit` passed first.
    ///
    /// - Parameters:
    ///   - limit: How long to wait at most.
    ///   - sleep: Sleeps for a duration on the clock that measures the limit.
    ///   - operation: The work to wait for.
    /// - Throws: What `operation` threw, or `CancellationError` when the waiting task is cancelled.
    static func run<Value: Sendable>(
        limit: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        let race = Race<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.wait(continuation)
                let work = Task {
                    do {
                        race.finish(.success(try await operation()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = Task {
                    // Cancelled when the operation finished first: then nothing is left to do.
                    guard (try? await sleep(limit)) != nil else { return }
                    race.finish(.success(nil))
                }
                race.started(work, timer)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The state of one run: who waits, which tasks to cancel, and whether it is decided.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var waiter: CheckedContinuation<Value?, any Error>?
            /// Set once the run is decided, by whichever came first.
            var outcome: Result<Value?, any Error>?
            var tasks: [Task<Void, Never>] = []
        }

        private let state = Locked(State())

        func wait(_ continuation: CheckedContinuation<Value?, any Error>) {
            let decided = state.withLock { state -> Result<Value?, any Error>? in
                // The waiting task may have been cancelled before it got here.
                guard let outcome = state.outcome else {
                    state.waiter = continuation
                    return nil
                }
                return outcome
            }
            if let decided { continuation.resume(with: decided) }
        }

        func started(_ work: Task<Void, Never>, _ timer: Task<Void, Never>) {
            let decided = state.withLock { state -> Bool in
                guard state.outcome != nil else {
                    state.tasks = [work, timer]
                    return false
                }
                return true
            }
            if decided {
                work.cancel()
                timer.cancel()
            }
        }

        func finish(_ outcome: Result<Value?, any Error>) {
            let (waiter, tasks) = state.withLock {
                state -> (CheckedContinuation<Value?, any Error>?, [Task<Void, Never>]) in
                guard state.outcome == nil else { return (nil, []) }
                state.outcome = outcome
                defer {
                    state.waiter = nil
                    state.tasks = []
                }
                return (state.waiter, state.tasks)
            }
            for task in tasks { task.cancel() }
            waiter?.resume(with: outcome)
        }
    }
}
