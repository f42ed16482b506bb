import Rebound
import Testing

/// The exact semantics of `Backoff`: the exponential curve, each jitter, pinned seeded waits, and clamping.
@Suite struct BackoffTests {
    static let defaultCurve: [Duration] = [
        .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1_600),
        .milliseconds(3_200), .milliseconds(6_400), .seconds(10), .seconds(10),
    ]

    @Test func theDefaultsAreTheDocumentedOnes() {
        let backoff = Backoff()
        #expect(backoff.base == .milliseconds(200))
        #expect(backoff.multiplier == 2)
        #expect(backoff.cap == .seconds(10))
        #expect(backoff.jitter == .full)
    }

    @Test func exponentialValuesDoubleFromTheBaseUntilTheCap() {
        let backoff = Backoff()
        #expect((0..<8).map { backoff.exponential(forRetry: $0) } == Self.defaultCurve)
    }

    @Test func aFractionalMultiplierGrowsByThatFactor() {
        let backoff = Backoff(base: .seconds(1), multiplier: 1.5, cap: .seconds(100))
        #expect(
            (0..<4).map { backoff.exponential(forRetry: $0) } == [
                .seconds(1), .milliseconds(1_500), .milliseconds(2_250), .milliseconds(3_375),
            ])
    }

    @Test func noJitterWaitsExactlyTheExponentialValueAndConsumesNoRandomness() {
        let backoff = Backoff(jitter: .none)
        var generator = SeededRandom(seed: 1)
        let before = generator
        #expect(backoff.schedule(retries: 8, using: &generator) == Self.defaultCurve)
        #expect(generator == before)
    }

    /// The first eight waits of the default backoff from `SeededRandom(seed: 42)`, in
    /// nanoseconds, computed by an independent C implementation of the documented algorithm.
    static let pinnedWaits: [Jitter: [Int64]] = [
        .full: [
            22_511_794, 203_463_472, 730_191_052, 1_544_596_034, 2_505_466_207, 5_862_225_512, 4_993_805_921,
            5_521_809_814,
        ],
        .equal: [
            111_255_897, 301_731_736, 765_095_526, 1_572_298_017, 2_852_733_103, 6_131_112_756, 7_496_902_960,
            7_760_904_907,
        ],
        .decorrelated: [
            245_023_589, 403_463_472, 930_191_052, 2_705_466_207, 6_062_225_512, 10_000_000_000, 10_000_000_000,
            10_000_000_000,
        ],
    ]

    /// Any change to the generator, the sampling or the formulas fails here.
    @Test(arguments: [Jitter.full, .equal, .decorrelated])
    func aFixedSeedGivesPinnedWaits(jitter: Jitter) throws {
        let expected = try #require(Self.pinnedWaits[jitter])
        var generator = SeededRandom(seed: 42)
        let schedule = Backoff(jitter: jitter).schedule(retries: 8, using: &generator)
        #expect(schedule == expected.map { Duration.nanoseconds($0) })
    }

    @Test(arguments: [64, 1_024, 1_000_000, Int.max])
    func hugeRetryNumbersSaturateAtTheCap(k: Int) {
        #expect(Backoff().exponential(forRetry: k) == .seconds(10))
        #expect(Backoff(multiplier: 1e300).exponential(forRetry: k) == .seconds(10))
        #expect(Backoff(multiplier: .infinity).exponential(forRetry: k) == .seconds(10))
        var generator = SeededRandom(seed: 9)
        let equal = Backoff(jitter: .equal).delay(forRetry: k, previous: nil, using: &generator)
        #expect(equal >= .seconds(5) && equal <= .seconds(10))
    }

    @Test func anInfiniteMultiplierStartsAtTheBaseThenJumpsToTheCap() {
        let backoff = Backoff(multiplier: .infinity)
        #expect(backoff.exponential(forRetry: 0) == .milliseconds(200))
        #expect(backoff.exponential(forRetry: 1) == .seconds(10))
    }

    @Test func aNegativeRetryNumberIsTreatedAsTheFirst() {
        #expect(Backoff().exponential(forRetry: -5) == .milliseconds(200))
    }

    @Test(arguments: [0, -2, 0.5, .nan, -.infinity])
    func aMultiplierBelowOneGivesAConstantWaitOfTheBase(multiplier: Double) {
        let backoff = Backoff(multiplier: multiplier)
        #expect(
            [0, 1, 5, 100].map { backoff.exponential(forRetry: $0) } == Array(repeating: .milliseconds(200), count: 4))
    }

    @Test func aNegativeBaseIsTreatedAsZero() {
        var generator = SeededRandom(seed: 4)
        for jitter in [Jitter.none, .full, .equal] {
            let backoff = Backoff(base: .seconds(-1), jitter: jitter)
            #expect(backoff.schedule(retries: 5, using: &generator) == Array(repeating: .zero, count: 5))
        }
        let decorrelated = Backoff(base: .seconds(-1), jitter: .decorrelated).schedule(retries: 5, using: &generator)
        #expect(decorrelated.allSatisfy { $0 >= .zero && $0 <= .seconds(10) })
    }

    @Test func aBaseAboveTheCapIsLoweredToTheCap() {
        var generator = SeededRandom(seed: 4)
        for jitter in Jitter.allCases {
            let backoff = Backoff(base: .seconds(30), cap: .seconds(10), jitter: jitter)
            #expect(backoff.exponential(forRetry: 0) == .seconds(10))
            #expect(backoff.schedule(retries: 5, using: &generator).allSatisfy { $0 <= .seconds(10) })
        }
        let decorrelated = Backoff(base: .seconds(30), cap: .seconds(10), jitter: .decorrelated)
        #expect(decorrelated.schedule(retries: 5, using: &generator) == Array(repeating: .seconds(10), count: 5))
    }

    @Test func aNegativeCapMakesEveryWaitZero() {
        var generator = SeededRandom(seed: 4)
        for jitter in Jitter.allCases {
            let backoff = Backoff(cap: .seconds(-1), jitter: jitter)
            #expect(backoff.schedule(retries: 5, using: &generator) == Array(repeating: .zero, count: 5))
        }
    }

    @Test func decorrelatedStartsBetweenTheBaseAndThreeTimesTheBase() {
        var generator = SeededRandom(seed: 11)
        let backoff = Backoff(jitter: .decorrelated)
        for _ in 0..<200 {
            let first = backoff.delay(forRetry: 0, previous: nil, using: &generator)
            #expect(first >= .milliseconds(200) && first <= .milliseconds(600))
        }
    }

    @Test func decorrelatedWaitsTheBaseWhenThreeTimesThePreviousIsBelowIt() {
        var generator = SeededRandom(seed: 11)
        let backoff = Backoff(jitter: .decorrelated)
        for previous in [Duration.zero, .milliseconds(50), .seconds(-3)] {
            #expect(backoff.delay(forRetry: 3, previous: previous, using: &generator) == .milliseconds(200))
        }
    }

    @Test func decorrelatedGrowsFromAHugePreviousWaitWithoutOverflowing() {
        var generator = SeededRandom(seed: 11)
        let previous = Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)
        let wait = Backoff(jitter: .decorrelated).delay(forRetry: 0, previous: previous, using: &generator)
        #expect(wait == .seconds(10))
    }

    @Test func theScheduleThreadsEachWaitIntoTheNext() {
        let backoff = Backoff(jitter: .decorrelated)
        var scheduleGenerator = SeededRandom(seed: 21)
        var stepGenerator = scheduleGenerator
        let schedule = backoff.schedule(retries: 10, using: &scheduleGenerator)
        var previous: Duration?
        var stepped: [Duration] = []
        for k in 0..<10 {
            let wait = backoff.delay(forRetry: k, previous: previous, using: &stepGenerator)
            stepped.append(wait)
            previous = wait
        }
        #expect(schedule == stepped)
    }

    @Test(arguments: [0, -1, Int.min])
    func aScheduleOfNoRetriesIsEmpty(retries: Int) {
        var generator = SeededRandom(seed: 1)
        #expect(Backoff().schedule(retries: retries, using: &generator).isEmpty)
    }

    @Test func jitterNamesAreStableForCoding() {
        #expect(Jitter.allCases.map(\.rawValue) == ["none", "full", "equal", "decorrelated"])
    }
}
