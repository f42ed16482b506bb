/// A small, fast, seedable generator: SplitMix64 (Steele, Lea and Flood, 2014).
///
/// Every random choice of the fault kit and the marketplace goes through one of these, so the same
/// seed gives the same faults, failures, tokens and captcha questions on every run and every
/// platform. The module does not depend on Rebound, which has its own; SplitMix64 is a dozen lines,
/// so it is repeated here rather than shared. It is not cryptographically secure, which a mock
/// server does not need.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A number in `0..<1` with 53 random bits, for comparing with a probability.
    package mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// The SplitMix64 finaliser: scrambles `value` so that nearby inputs give unrelated outputs.
    ///
    /// Used on its own to derive a value from a seed and a counter without keeping a generator, as
    /// captcha questions and tokens are.
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The `index`th value derived from `seed` in the stream named `stream`, without a generator.
    ///
    /// Different streams give unrelated values for the same seed and index, so the tokens of a run do
    /// not shift when its failures do.
    package static func derive(seed: UInt64, stream: UInt64, index: UInt64) -> UInt64 {
        mix(mix(seed ^ mix(stream &+ 0x9E37_79B9_7F4A_7C15)) &+ index &* 0x9E37_79B9_7F4A_7C15)
    }
}
