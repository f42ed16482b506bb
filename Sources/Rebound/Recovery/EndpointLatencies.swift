/// The durations of recent successful calls (from their earliest attempt in flight), per endpoint, from which
/// ``HedgingPolicy/Delay/observedP90(window:initial:)`` reads its delay.
///
/// Bounded: at most ``maxEndpoints`` endpoints, each with at most its window's durations (a ring
/// that overwrites the oldest). An endpoint beyond the limit is not measured, and its calls wait
/// the policy's initial delay.
final class EndpointLatencies: Sendable {
    /// The most endpoints measured.
    static let maxEndpoints = 256
    /// How many durations an endpoint needs before its p90 is used.
    static let minimumSamples = 10
    /// The bounds of a window.
    static let windows = 10...1_000

    private struct Ring {
        var durations: [Duration] = []
        var next = 0

        mutating func append(_ duration: Duration, window: Int) {
            if durations.count != window, next != 0 {
                // The policy's window changed: oldest first again, so that the newest are kept.
                durations = Array(durations[next...]) + durations[..<next]
                next = 0
            }
            if durations.count > window { durations.removeFirst(durations.count - window) }
            if durations.count < window {
                durations.append(duration)
            } else {
                // Full: `next` is the oldest.
                durations[next] = duration
                next = (next + 1) % window
            }
        }
    }

    private let rings = Locked<[String: Ring]>([:])

    /// Records a successful attempt's duration for `endpoint`, keeping the last `window`.
    func record(_ duration: Duration, for endpoint: String, window: Int) {
        let window = Self.clamp(window)
        rings.withLock { rings in
            guard rings[endpoint] != nil || rings.count < Self.maxEndpoints else { return }
            rings[endpoint, default: Ring()].append(duration, window: window)
        }
    }

    /// The 90th percentile of `endpoint`'s recorded durations, or `nil` with fewer than
    /// ``minimumSamples`` of them.
    func p90(of endpoint: String) -> Duration? {
        guard var durations = rings.withLock({ $0[endpoint]?.durations }), durations.count >= Self.minimumSamples
        else { return nil }
        durations.sort()
        // The nearest-rank percentile: the smallest duration at or above 90 % of them.
        let rank = (durations.count * 9 + 9) / 10
        return durations[rank - 1]
    }

    static func clamp(_ window: Int) -> Int {
        min(max(window, windows.lowerBound), windows.upperBound)
    }
}
