import Foundation
import PropertyBased
import Rebound
import Testing

private typealias SeededGenerator = Rebound.SeededRandom

/// Property tests over random configurations, retry numbers and seeds: every wait respects its
/// jitter's bounds and the cap, and seeded schedules are reproducible.
@Suite struct BackoffPropertyTests {
    /// A valid configuration (`base ≤ cap`, `multiplier ≥ 1`) with any jitter.
    static let backoffs = zip(
        Gen.int64(in: 0...2_000_000_000), Gen.double(in: 1...4), Gen.int64(in: 0...60_000_000_000),
        Gen<Jitter>.case
    ).map { base, multiplier, extra, jitter in
        Backoff(base: .nanoseconds(base), multiplier: multiplier, cap: .nanoseconds(base + extra), jitter: jitter)
    }

    /// Any configuration at all, negative durations, multipliers below one and NaN included.
    static let anyBackoffs = zip(
        Gen.int64(in: -5_000_000_000...5_000_000_000),
        Gen.int(in: 0...7).map { [-2, 0, 0.5, 1, 2, .nan, .infinity, -.infinity][$0] },
        Gen.int64(in: -5_000_000_000...5_000_000_000), Gen<Jitter>.case
    ).map { base, multiplier, cap, jitter in
        Backoff(base: .nanoseconds(base), multiplier: multiplier, cap: .nanoseconds(cap), jitter: jitter)
    }

    static let previousWaits = Gen.int64(in: -1_000_000_000...120_000_000_000).map { Duration.nanoseconds($0) }.optional

    @Test func everyDelayStaysWithinItsJitterBoundsAndTheCap() async {
        await propertyCheck(
            count: 500, input: Self.backoffs, Gen.int(in: 0...200), Self.previousWaits, Gen.uint64()
        ) { backoff, k, previous, seed in
            var generator = SeededGenerator(seed: seed)
            let value = backoff.exponential(forRetry: k)
            let delay = backoff.delay(forRetry: k, previous: previous, using: &generator)
            switch backoff.jitter {
            case .none:
                #expect(delay == value)
            case .full:
                #expect(delay >= .zero && delay <= value)
            case .equal:
                #expect(delay >= value / 2 && delay <= value)
            case .decorrelated:
                let upper = max(backoff.base, (previous ?? backoff.base) * 3)
                #expect(delay >= backoff.base && delay <= min(backoff.cap, upper))
            }
            #expect(delay <= backoff.cap)
        }
    }

    @Test func theExponentialValueIsBaseTimesMultiplierToTheKCappedAndNeverShrinks() async {
        await propertyCheck(count: 500, input: Self.backoffs, Gen.int(in: 0...2_000)) { backoff, k in
            let value = backoff.exponential(forRetry: k)
            let next = backoff.exponential(forRetry: k + 1)
            let growth = pow(backoff.multiplier, Double(k))
            let expected = backoff.base == .zero ? 0 : min(seconds(backoff.cap), seconds(backoff.base) * growth)
            #expect(abs(seconds(value) - expected) <= expected * 1e-12 + 1e-9)
            #expect(value >= backoff.base && value <= backoff.cap)
            #expect(next >= value)
        }
    }

    @Test func anyConfigurationGivesWaitsBetweenZeroAndTheCap() async {
        await propertyCheck(
            count: 500, input: Self.anyBackoffs, Gen.int(in: 0...Int.max), Self.previousWaits, Gen.uint64()
        ) { backoff, k, previous, seed in
            var generator = SeededGenerator(seed: seed)
            let cap = max(.zero, backoff.cap)
            let value = backoff.exponential(forRetry: k)
            let delay = backoff.delay(forRetry: k, previous: previous, using: &generator)
            #expect(value >= .zero && value <= cap)
            #expect(delay >= .zero && delay <= cap)
        }
    }

    @Test func theSameSeedGivesTheSameSchedule() async {
        await propertyCheck(input: Self.backoffs, Gen.int(in: 0...50), Gen.uint64()) { backoff, retries, seed in
            var first = SeededGenerator(seed: seed)
            var second = SeededGenerator(seed: seed)
            #expect(
                backoff.schedule(retries: retries, using: &first) == backoff.schedule(retries: retries, using: &second))
        }
    }

    @Test func decorrelatedWaitsStayBetweenTheBaseAndTheCap() async {
        await propertyCheck(input: Self.backoffs, Gen.int(in: 1...60), Gen.uint64()) { backoff, retries, seed in
            var decorrelated = backoff
            decorrelated.jitter = .decorrelated
            var generator = SeededGenerator(seed: seed)
            let schedule = decorrelated.schedule(retries: retries, using: &generator)
            #expect(schedule.allSatisfy { $0 >= backoff.base && $0 <= backoff.cap })
        }
    }

    @Test func aScheduleTotalsAtMostRetriesTimesTheCap() async {
        await propertyCheck(input: Self.backoffs, Gen.int(in: 0...100), Gen.uint64()) { backoff, retries, seed in
            var generator = SeededGenerator(seed: seed)
            let schedule = backoff.schedule(retries: retries, using: &generator)
            #expect(schedule.count == retries)
            #expect(schedule.reduce(.zero, +) <= backoff.cap * retries)
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
