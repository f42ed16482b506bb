import Rebound

/// Waits drawn for simulated requests that fail every attempt.
struct Simulation {
    /// The policy.
    var backoff: Backoff
    /// Retries per request: the waits in each sample.
    var retries: Int
    /// The seed the waits were drawn with.
    var seed: UInt64
    /// The waits, one array of `retries` waits per sample.
    var samples: [[Duration]]

    /// Draws `samples` schedules, one after another from one generator seeded with `seed`.
    init(backoff: Backoff, retries: Int, samples: Int, seed: UInt64) {
        self.backoff = backoff
        self.retries = retries
        self.seed = seed
        var generator = SeededRandom(seed: seed)
        self.samples = (0..<samples).map { _ in backoff.schedule(retries: retries, using: &generator) }
    }

    /// The shortest and longest wait the jitter allows before retry `k`.
    ///
    /// Decorrelated jitter grows from the previous wait rather than from `k`, so its range is the
    /// whole of base...cap.
    func bounds(forRetry k: Int) -> ClosedRange<Duration> {
        let value = backoff.exponential(forRetry: k)
        switch backoff.jitter {
        case .none: return value...value
        case .full: return .zero...value
        case .equal: return (value / 2)...value
        case .decorrelated: return min(backoff.base, backoff.cap)...backoff.cap
        }
    }
}

/// What `rebound simulate --json` prints: `{"samples": [[Double]]}`, each inner array the waits
/// in seconds before retries 0, 1, 2… of one sample.
struct SimulationReport: Codable, Hashable {
    var samples: [[Double]]

    init(_ simulation: Simulation) {
        samples = simulation.samples.map { $0.map(\.secondsValue) }
    }
}
