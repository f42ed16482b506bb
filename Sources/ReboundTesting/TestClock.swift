public import Foundation
public import Rebound

/// A `Clock` for unit tests: time moves only when the test says so, and nothing really sleeps.
///
/// In ``Mode/immediate`` mode (the default) a sleep returns at once and moves the clock forward
/// by its duration, so a retry schedule runs instantly and can be read back from ``sleeps``. In
/// ``Mode/manual`` mode a sleep waits until the test calls ``advance(by:)`` past its deadline, for
/// tests that need a task to be in the middle of a wait (to cancel it there, say).
///
/// Either way a sleeping task that is cancelled throws `CancellationError` at once, as
/// `ContinuousClock` does.
///
/// Give the pipeline ``timeSource``: its monotonic time is this clock's, and its date starts at
/// ``startDate`` and moves with it, so a `Retry-After` date or a credential's expiry is read
/// against the same time as the waits.
///
/// Use ``Mode/immediate`` only where nothing but the pipeline's own waits sleeps: a hook that
/// suspends is raced against the call's deadline on this clock (a refresh and a captcha against
/// their handlers' time limits too), and an immediate sleep ends that race at once. Where hooks
/// suspend (a refresh, a captcha), use ``Mode/manual`` and
/// ``advance(by:whenSleepersReach:patience:)``.
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
    /// The date when the clock's time was zero.
    public let startDate: Date
    private let state = Locked(State())

    /// Creates a clock at time zero.
    ///
    /// - Parameters:
    ///   - mode: How sleeps behave.
    ///   - startDate: The date at time zero (``date`` moves on from it); by default
    ///     2023-11-14 22:13:20 UTC, a fixed date so that tests are reproducible.
    public init(mode: Mode = .immediate, startDate: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.mode = mode
        self.startDate = startDate
    }

    /// The date now: ``startDate`` plus the time the clock has moved.
    public var date: Date {
        let (seconds, attoseconds) = now.offset.components
        return startDate.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// The pipeline's time source on this clock, with ``date`` as its date.
    public var timeSource: TimeSource {
        TimeSource(
            now: { [self] in now.offset },
            sleep: { [self] in try await sleep(for: $0) },
            date: { [self] in date }
        )
    }

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Swift.Duration { .nanoseconds(1) }

    /// Every duration slept so far, in order.
    public var sleeps: [Swift.Duration] { state.withLock { $0.sleeps } }

    /// How many tasks are waiting in a manual-mode sleep.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        try await sleep { _ in deadline }
    }

    /// Sleeps for `duration` from the clock's time when the sleep begins, read in the same step
    /// that records it: tasks that sleep at once each sleep their whole duration (`sleeps` holds
    /// each; in ``Mode/immediate`` mode the clock moves by each), whatever the order they run in.
    public func sleep(for duration: Swift.Duration, tolerance: Swift.Duration? = nil) async throws {
        try await sleep { now in now.advanced(by: max(.zero, duration)) }
    }

    /// Records a sleep until the deadline `deadlineFrom` makes of the time now, read under the
    /// lock, and waits as the mode says.
    private func sleep(_ deadlineFrom: (Instant) -> Instant) async throws {
        try Task.checkCancellation()
        switch mode {
        case .immediate:
            state.withLock { state in
                let deadline = deadlineFrom(state.now)
                state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
                if deadline > state.now { state.now = deadline }
            }
        case .manual:
            let (id, deadline) = state.withLock { state -> (Int, Instant) in
                let deadline = deadlineFrom(state.now)
                state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
                defer { state.nextSleeper += 1 }
                return (state.nextSleeper, deadline)
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

    /// Waits (really, briefly) until `count` tasks are sleeping on this manual-mode clock, then
    /// moves it forward by `duration`: for a test that must let the code under test reach its
    /// waits (a backoff, a deadline race) before time moves.
    ///
    /// - Parameters:
    ///   - duration: How far to move the clock.
    ///   - count: How many sleepers to wait for.
    ///   - patience: The most real time to wait for them.
    /// - Throws: ``SleepersDidNotArrive`` when fewer than `count` tasks sleep after `patience`;
    ///   `CancellationError` when the test is cancelled.
    public func advance(
        by duration: Swift.Duration,
        whenSleepersReach count: Int,
        patience: Swift.Duration = .seconds(30)
    ) async throws {
        let giveUp = ContinuousClock.now + patience
        while sleeperCount < count {
            guard ContinuousClock.now < giveUp else {
                throw SleepersDidNotArrive(expected: count, sleeping: sleeperCount)
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        advance(by: duration)
    }

    /// Fewer tasks slept on the clock than a test waited for.
    public struct SleepersDidNotArrive: Error, CustomStringConvertible {
        public let expected: Int
        public let sleeping: Int

        public var description: String {
            "Expected \(expected) tasks sleeping on the test clock, found \(sleeping)."
        }
    }

    /// Moves the clock forward, waking the manual-mode sleepers whose deadline has come.
    ///
    /// The clock moves in one step, unlike a real one: the sleepers it wakes, earliest deadline
    /// first, all read the new time, and a task that sleeps again once woken sleeps from the new
    /// time, so a second sleep inside the span is not over until the clock is advanced again. To
    /// let a task wake and sleep again in between, advance in steps.
    public func advance(by duration: Swift.Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            // Earliest deadline first; of equal ones, the one that began to sleep first.
            let due = state.sleepers.filter { $0.value.deadline <= now }
                .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
