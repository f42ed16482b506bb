/// A clock opened once, so that the pipeline can use any `Clock<Duration>` without generics.
///
/// Time is measured as the duration since the clock was opened, which is all the pipeline needs
/// (deadlines and attempt durations) and works the same for a real and a test clock.
struct PipelineClock: Sendable {
    /// The time since the clock was opened.
    let now: @Sendable () -> Duration
    /// Sleeps for a duration; throws `CancellationError` when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void
    /// Whether the clock is a real one (`ContinuousClock`, `SuspendingClock`), whose sleeps can
    /// bound a handler's time as they pass. A clock of the app's own, such as a test clock whose
    /// sleeps return at once and move its time, is read only after a handler returns.
    let isReal: Bool

    init(_ clock: any Clock<Duration>) {
        self = Self.open(clock)
    }

    private init(
        now: @escaping @Sendable () -> Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        isReal: Bool
    ) {
        self.now = now
        self.sleep = sleep
        self.isReal = isReal
    }

    private static func open<C: Clock<Duration>>(_ clock: C) -> PipelineClock {
        // The real clock, written out: through the generic closure below, every reading looks
        // the clock's types up again, and the pipeline reads the clock twice per attempt.
        if let continuous = clock as? ContinuousClock {
            let start = ContinuousClock.now
            return PipelineClock(
                now: { start.duration(to: .now) },
                sleep: { try await continuous.sleep(for: min($0, longestRealSleep)) },
                isReal: true
            )
        }
        let start = clock.now
        let isReal = clock is SuspendingClock
        return PipelineClock(
            now: { start.duration(to: clock.now) },
            sleep: { try await clock.sleep(for: isReal ? min($0, longestRealSleep) : $0) },
            isReal: isReal
        )
    }

    /// The longest sleep asked of a real clock: a thousand years, as good as never. The standard
    /// clocks trap on a sleep whose end they cannot represent (past `Int64.max` seconds), which a
    /// deadline of `.seconds(Int64.max)` would otherwise ask for whenever a handler is raced.
    static let longestRealSleep = Duration.seconds(1000 * 365 * 24 * 3600)
}
