import Rebound

/// A `Clock` for unit tests: time moves only when the test says so, and nothing really sleeps.
///
/// In ``Mode/immediate`` mode (the default) a sleep returns at once and moves the clock forward
/// by its duration, so a retry schedule runs instantly and can be read back from ``sleeps``. In
/// ``Mode/manual`` mode a sleep waits until the test calls ``advance(by:)`` past its deadline, for
/// tests that need a task to be in the middle of a wait (to cancel it there, say).
///
/// Either way a sleeping task that is cancelled throws `CancellationError` at once, as
/// `ContinuousClock` does.
public final class TestClock: Clock, Sendable {
    public typealias Duration = Swift.Duration

    /// A point in the test clock's time.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// The time since the clock was created.
        public var offset: Swift.Duration

        public init(offset: Swift.Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Swift.Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Swift.Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    /// How sleeps behave.
    public enum Mode: Sendable {
        /// A sleep returns at once and moves the clock forward.
        case immediate
        /// A sleep waits for ``TestClock/advance(by:)``.
        case manual
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [Swift.Duration] = []
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they stored their sleeper: they end as soon as they try.
        var cancelled: Set<Int> = []
        var nextSleeper = 0
    }

    public let mode: Mode
    private let state = Locked(State())

    public init(mode: Mode = .immediate) {
        self.mode = mode
    }

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Swift.Duration { .nanoseconds(1) }

    /// Every duration slept so far, in order.
    public var sleeps: [Swift.Duration] { state.withLock { $0.sleeps } }

    /// How many tasks are waiting in a manual-mode sleep.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        try Task.checkCancellation()
        switch mode {
        case .immediate:
            state.withLock { state in
                state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
                if deadline > state.now { state.now = deadline }
            }
        case .manual:
            let id = state.withLock { state -> Int in
                state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
                defer { state.nextSleeper += 1 }
                return state.nextSleeper
            }
            // The cancellation may land before the sleeper is stored (after the check above): it
            // is remembered then, and the sleep ends as it tries to store its sleeper.
            defer { state.withLock { _ = $0.cancelled.remove(id) } }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let resumption = state.withLock { state -> Result<Void, CancellationError>? in
                        if state.cancelled.contains(id) { return .failure(CancellationError()) }
                        if deadline <= state.now { return .success(()) }
                        state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                        return nil
                    }
                    if let resumption { continuation.resume(with: resumption) }
                }
            } onCancel: {
                let sleeper = state.withLock { state in
                    guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                        state.cancelled.insert(id)
                        return Sleeper?.none
                    }
                    return sleeper
                }
                sleeper?.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Moves the clock forward, waking the manual-mode sleepers whose deadline has come.
    public func advance(by duration: Swift.Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
