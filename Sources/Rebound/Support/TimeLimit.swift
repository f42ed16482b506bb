import Synchronization

/// Runs an operation, but stops waiting for it when a time limit passes first.
///
/// The operation runs in a task of its own, started at once on the caller's thread, so an
/// operation that finishes without suspending (a handler that decides from what it holds, a hook
/// whose store answers from memory) is simply done when it returns: no timer, no waiting, no
/// switch of threads, and no lock. That matters because the pipeline runs hooks this way on every
/// attempt. Only an operation that suspends is raced: a timer joins it, and a watcher that waits
/// for its result; when the limit passes (or the waiting task is cancelled) the waiter leaves at
/// once and the tasks are cancelled. An operation that does not heed cancellation finishes on its
/// own later (its watcher with it), and its result is dropped. That is what bounds the handlers
/// the pipeline cannot trust to watch the clock: a credential refresh that never answers, a
/// person who never solves a captcha, a credential store that hangs.
///
/// ```
///  waiter ──► run ──► operation task, started here ── returned without suspending ──► result
///                          │ suspended
///                 watcher task ─────── result ─────────┐
///                 timer task ── limit passed ── nil ───┤ first one wins;
///  cancelled ──────────── CancellationError ───────────┘ the three tasks cancelled
/// ```
///
/// An operation that blocks its thread instead of suspending holds the caller's thread too, and
/// cannot be left behind: blocking work belongs off Swift's cooperative pool, behind a
/// continuation, where it suspends the operation like any other wait.
package enum TimeLimit {
    /// Operations started and not returned yet: once every call has ended, any left is one that
    /// was left behind at its limit and still runs (a hook that ignores cancellation), which the
    /// soak test counts.
    package static var operationsRunning: Int { running.load(ordering: .relaxed) }

    private static let running = Atomic<Int>(0)

    /// The operation's result, or `nil` when `limit` passed first.
    ///
    /// - Parameters:
    ///   - limit: How long to wait at most; with none left, an operation that suspends is left
    ///     behind at once.
    ///   - time: The time source whose clock measures the limit.
    ///   - operation: The work to wait for.
    /// - Throws: What `operation` threw, or `CancellationError` when the waiting task is cancelled
    ///   while the operation is suspended.
    nonisolated(nonsending) static func run<Value: Sendable>(
        limit: Duration,
        on time: TimeSource,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        let returned = Flag()
        running.add(1, ordering: .relaxed)
        let work = startedAtOnce {
            defer {
                running.subtract(1, ordering: .relaxed)
                returned.raise()
            }
            return try await operation()
        }
        // Done without suspending: its value is there, and awaiting it does not suspend either.
        if returned.isRaised { return try await work.value }
        guard limit > .zero else {
            work.cancel()
            return nil
        }
        let race = Race<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.wait(continuation)
                let watcher = Task {
                    do {
                        race.finish(.success(try await work.value))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = Task {
                    // Cancelled when the operation finished first: then nothing is left to do.
                    guard (try? await time.sleep(for: limit)) != nil else { return }
                    race.finish(.success(nil))
                }
                race.started(cancelling: [work.cancel, watcher.cancel, timer.cancel])
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// A task running `body`, started on the caller's thread where the platform can.
    private static func startedAtOnce<Value: Sendable>(
        _ body: @escaping @Sendable () async throws -> Value
    ) -> Task<Value, any Error> {
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return Task.immediate { try await body() }
        }
        return Task { try await body() }
    }

    /// Raised once the operation returned or threw: read right after its task started, it tells
    /// whether the operation finished without suspending.
    private final class Flag: Sendable {
        private let raised = Atomic(false)

        var isRaised: Bool { raised.load(ordering: .acquiring) }

        func raise() { raised.store(true, ordering: .releasing) }
    }

    /// The state of one run: who waits, which tasks to cancel, and whether it is decided.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var waiter: CheckedContinuation<Value?, any Error>?
            /// Set once the run is decided, by whichever came first.
            var outcome: Result<Value?, any Error>?
            var cancels: [@Sendable () -> Void] = []
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

        /// Keeps what cancels the run's tasks, or calls it at once if the run is decided already.
        func started(cancelling cancels: [@Sendable () -> Void]) {
            let decided = state.withLock { state -> Bool in
                guard state.outcome != nil else {
                    state.cancels = cancels
                    return false
                }
                return true
            }
            if decided { for cancel in cancels { cancel() } }
        }

        func finish(_ outcome: Result<Value?, any Error>) {
            let (waiter, cancels) = state.withLock {
                state -> (CheckedContinuation<Value?, any Error>?, [@Sendable () -> Void]) in
                guard state.outcome == nil else { return (nil, []) }
                state.outcome = outcome
                defer {
                    state.waiter = nil
                    state.cancels = []
                }
                return (state.waiter, state.cancels)
            }
            for cancel in cancels { cancel() }
            waiter?.resume(with: outcome)
        }
    }
}
