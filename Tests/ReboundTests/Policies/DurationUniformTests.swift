import PropertyBased
import Testing

@testable import Rebound

private typealias SeededGenerator = Rebound.SeededRandom

/// `Duration.uniform(in:using:)`: within its range, never trapping, and the same for the same seed.
@Suite struct DurationUniformTests {
    @Test func aSingleValueRangeReturnsThatValueWithoutConsumingRandomness() {
        var generator = SeededGenerator(seed: 1)
        let before = generator
        let value = Duration.seconds(3) + .nanoseconds(5)
        #expect(Duration.uniform(in: value...value, using: &generator) == value)
        #expect(generator == before)
    }

    @Test func aRangeNarrowerThanANanosecondReturnsItsLowerBound() {
        var generator = SeededGenerator(seed: 1)
        let lower = Duration.seconds(1)
        let upper = lower + Duration(secondsComponent: 0, attosecondsComponent: 999_999_999)
        #expect(Duration.uniform(in: lower...upper, using: &generator) == lower)
    }

    @Test func aFixedSeedGivesPinnedDurations() {
        // Computed by an independent C implementation of the documented algorithm.
        var generator = SeededGenerator(seed: 42)
        let values = (0..<3).map { _ in Duration.uniform(in: .zero ... .seconds(1), using: &generator) }
        #expect(values == [.nanoseconds(90_047_179), .nanoseconds(406_926_945), .nanoseconds(730_191_052)])
    }

    @Test func theWidestRangeWorks() {
        var generator = SeededGenerator(seed: 3)
        let lowest = Duration(secondsComponent: .min, attosecondsComponent: 0)
        let highest = Duration(secondsComponent: .max, attosecondsComponent: 0)
        for _ in 0..<100 {
            let value = Duration.uniform(in: lowest...highest, using: &generator)
            #expect(value >= lowest && value <= highest)
        }
    }

    @Test func valuesCoverTheWholeRange() {
        var generator = SeededGenerator(seed: 5)
        let values = (0..<2_000).map { _ in Duration.uniform(in: .zero ... .nanoseconds(9), using: &generator) }
        #expect(Set(values) == Set((0...9).map { Duration.nanoseconds($0) }))
    }

    @Test func everyValueLiesInItsRangeOnAWholeNanosecondFromTheLowerBound() async {
        await propertyCheck(
            input: Gen.int64(in: -1_000_000_000_000...1_000_000_000_000), Gen.int64(in: 0...1_000_000_000_000),
            Gen.int64(in: 0...999_999_999), Gen.uint64()
        ) { lowerNanoseconds, widthNanoseconds, attoseconds, seed in
            let lower =
                Duration.nanoseconds(lowerNanoseconds)
                + Duration(secondsComponent: 0, attosecondsComponent: attoseconds)
            let upper = lower + .nanoseconds(widthNanoseconds)
            var generator = SeededGenerator(seed: seed)
            let value = Duration.uniform(in: lower...upper, using: &generator)
            #expect(value >= lower && value <= upper)
            #expect((value - lower).components.attoseconds % 1_000_000_000 == 0)
        }
    }

    @Test func theSameSeedGivesTheSameValue() async {
        await propertyCheck(input: Gen.int64(in: 0...1_000_000_000_000), Gen.uint64()) { widthNanoseconds, seed in
            var first = SeededGenerator(seed: seed)
            var second = SeededGenerator(seed: seed)
            let range = Duration.zero ... .nanoseconds(widthNanoseconds)
            #expect(Duration.uniform(in: range, using: &first) == Duration.uniform(in: range, using: &second))
        }
    }
}
