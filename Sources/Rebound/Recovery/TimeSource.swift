#if os(Linux)
    import Glibc
    // Where `timespec`'s members are declared, for member import visibility.
    import SwiftOverlayShims
#endif
#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The pipeline's one source of time: a monotonic clock for waits and deadlines, and the
/// wall-clock date for what servers and credentials state as dates.
///
/// Deadlines, attempt durations and waits are measured on the monotonic clock, as a duration
/// since a fixed origin (``now``), so that they never jump when the system's date is changed.
/// Every source on `ContinuousClock` or `SuspendingClock` shares its clock's origin, so handlers
/// shared by several data managers compare their times; a source on another clock measures from
/// when it was made. On Linux both standard clocks count from the system's boot, and
/// `SuspendingClock` leaves out the time the system was suspended.
///
/// `Retry-After` given as an HTTP date and a credential's `expiresAt` are dates, read from
/// ``date``. Keeping both in one value means a test that moves time moves both:
/// `TestClock(mode:).timeSource` (in ReboundTesting) gives a date that moves with its clock.
///
/// An ``APIDataManager`` takes one time source and hands it to every handler through
/// ``AttemptContext/time``; handlers take no clock of their own.
///
/// ```swift
/// let api = try APIDataManager(baseURL: url, transport: transport, time: .system)
/// ```
public struct TimeSource: Sendable {
    /// The three closures, behind one reference: a time source is copied into every attempt's
    /// context.
    private final class Clocks: Sendable {
        let now: @Sendable () -> Duration
        let date: @Sendable () -> Date
        let sleep: @Sendable (Duration) async throws -> Void

        init(
            now: @escaping @Sendable () -> Duration,
            date: @escaping @Sendable () -> Date,
            sleep: @escaping @Sendable (Duration) async throws -> Void
        ) {
            self.now = now
            self.date = date
            self.sleep = sleep
        }
    }

    private let clocks: Clocks

    /// The time since a fixed origin, on the source's monotonic clock.
    public var now: @Sendable () -> Duration { clocks.now }
    /// The current wall-clock date.
    public var date: @Sendable () -> Date { clocks.date }

    /// The system's clocks: `ContinuousClock` (which keeps counting while the machine sleeps, so
    /// that a deadline means elapsed time) and the system's date.
    public static var system: TimeSource {
        TimeSource(ContinuousClock(), date: { Date() })
    }

    /// A time source on `clock`, with `date` as the wall clock.
    ///
    /// - Parameters:
    ///   - clock: Measures waits and deadlines.
    ///   - date: The current date; keep it in step with `clock` in tests (as
    ///     `TestClock.timeSource` does).
    public init<C: Clock<Duration>>(_ clock: C, date: @escaping @Sendable () -> Date) {
        let now: @Sendable () -> Duration
        let sleeper: @Sendable (Duration) async throws -> Void
        // The standard clocks trap on a sleep whose end they cannot represent, which a deadline
        // of `.seconds(Int64.max)` would otherwise ask for.
        if let continuous = clock as? ContinuousClock {
            // Written out: through the generic closure below every reading looks the clock's
            // types up again, and the pipeline reads the clock on every attempt.
            now = Self.continuousNow
            sleeper = { try await continuous.sleep(for: min($0, Self.longestRealSleep)) }
        } else if let suspending = clock as? SuspendingClock {
            now = Self.suspendingNow
            sleeper = { try await suspending.sleep(for: min($0, Self.longestRealSleep)) }
        } else {
            let origin = clock.now
            now = { origin.duration(to: clock.now) }
            sleeper = { try await clock.sleep(for: $0) }
        }
        clocks = Clocks(now: now, date: date, sleep: sleeper)
    }

    /// A time source from its parts, for a clock of the app's own.
    ///
    /// Handlers may read `now` while they hold a lock of their own (the circuit breaker and the
    /// rate limiter do, to read it only when a decision needs it): it must not call into them.
    ///
    /// - Parameters:
    ///   - now: The time since a fixed origin, never decreasing.
    ///   - sleep: Sleeps for a duration on the same clock; throws `CancellationError` when the task
    ///     is cancelled.
    ///   - date: The current date.
    public init(
        now: @escaping @Sendable () -> Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        date: @escaping @Sendable () -> Date
    ) {
        clocks = Clocks(now: now, date: date, sleep: sleep)
    }

    #if os(Linux)
        // The system clocks that `ContinuousClock` and `SuspendingClock` read on Linux (the
        // Swift runtime's Clock.cpp), read directly rather than through the clocks' instants:
        // the pipeline reads the clock several times a call. The time is since the clock's own
        // origin, its `systemEpoch`.
        private static let continuousNow: @Sendable () -> Duration = { reading(CLOCK_BOOTTIME) }
        private static let suspendingNow: @Sendable () -> Duration = { reading(CLOCK_MONOTONIC) }

        private static func reading(_ clock: clockid_t) -> Duration {
            var time = timespec()
            clock_gettime(clock, &time)
            return Duration(
                secondsComponent: Int64(time.tv_sec), attosecondsComponent: Int64(time.tv_nsec) * 1_000_000_000)
        }
    #else
        private static let continuousNow: @Sendable () -> Duration = {
            ContinuousClock().systemEpoch.duration(to: .now)
        }
        private static let suspendingNow: @Sendable () -> Duration = {
            SuspendingClock().systemEpoch.duration(to: .now)
        }
    #endif

    /// Sleeps for `duration` on the monotonic clock.
    ///
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await clocks.sleep(duration)
    }

    /// The longest sleep asked of a real clock: a thousand years, as good as never.
    static let longestRealSleep = Duration.seconds(1000 * 365 * 24 * 3600)
}
