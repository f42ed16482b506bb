import Rebound

/// When each call of `rebound load` starts: the tickets its workers take in turn.
///
/// ```
/// closed loop (--concurrency N):  N workers; a worker's next call starts when its last ends
/// open loop (--rate R):           call i is due at start + i / R, whatever the others did;
///                                 1,000 workers, so at most 1,000 calls are in flight, and a
///                                 call due while all are busy starts late (its latency counts
///                                 from when it was due)
/// ```
///
/// Tickets run out after `--requests` calls, or once a call would start (closed loop) or be due
/// (open loop) after `--duration`.
final class LoadSchedule: Sendable {
    /// How calls are started.
    enum Pace: Hashable, Sendable {
        /// A number of calls kept in flight.
        case concurrency(Int)
        /// Calls started per second.
        case rate(Double)
    }

    /// When tickets run out.
    enum Stop: Hashable, Sendable {
        case afterCalls(Int)
        case afterDuration(Duration)
    }

    /// The most calls in flight of an open loop: it bounds the connections, sockets and memory a
    /// rate the server cannot keep up with would otherwise pile up.
    static let openLoopInFlightBound = 1_000

    let pace: Pace
    let stop: Stop
    let start: ContinuousClock.Instant
    private let issued = Locked(0)

    init(pace: Pace, stop: Stop, start: ContinuousClock.Instant) {
        self.pace = pace
        self.stop = stop
        self.start = start
    }

    /// How many workers take tickets: the concurrency, or as many as an open loop may have in
    /// flight (no more than there are calls to make).
    var workers: Int {
        let most: Int
        switch pace {
        case .concurrency(let concurrency): most = concurrency
        case .rate: most = Self.openLoopInFlightBound
        }
        if case .afterCalls(let calls) = stop { return min(most, calls) }
        return most
    }

    /// When the next call is due, or `nil` when the run has made all its calls.
    ///
    /// - Parameter now: The time the worker asks, which is when a closed loop's call is due.
    func nextDue(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        issued.withLock { issued in
            let due: ContinuousClock.Instant
            switch pace {
            case .concurrency: due = now
            case .rate(let rate): due = start + .seconds(Double(issued) / rate)
            }
            switch stop {
            case .afterCalls(let calls): guard issued < calls else { return nil }
            case .afterDuration(let duration): guard start.duration(to: due) < duration else { return nil }
            }
            issued += 1
            return due
        }
    }
}
