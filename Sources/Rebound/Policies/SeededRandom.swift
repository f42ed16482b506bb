/// A small, fast pseudo-random generator whose sequence is fixed by its seed.
///
/// The algorithm is xoshiro256** by David Blackman and Sebastiano Vigna (<https://prng.di.unimi.it>),
/// with its 256-bit state filled from the 64-bit seed by SplitMix64, as its authors recommend. Both
/// use only 64-bit wrapping arithmetic, shifts and rotations, so the same seed gives the same
/// sequence on every platform and with every compiler: a test can pin the delays it expects, and a
/// failure seen in production can be replayed from its seed.
///
/// It is not cryptographically secure. Use it where reproducibility matters (tests, simulations,
/// replaying an incident); use `SystemRandomNumberGenerator` where it does not.
///
/// ```swift
/// var generator = SeededRandom(seed: 42)
/// let waits = Backoff().schedule(retries: 3, using: &generator)  // the same three waits every run
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    private var state0: UInt64
    private var state1: UInt64
    private var state2: UInt64
    private var state3: UInt64

    /// Creates a generator whose sequence is determined by `seed`.
    ///
    /// Every seed is valid, zero included: SplitMix64 never yields four zero words in a row, the
    /// one state from which xoshiro cannot move.
    ///
    /// - Parameter seed: Any 64-bit value.
    public init(seed: UInt64) {
        var splitMix = SplitMix64(state: seed)
        state0 = splitMix.next()
        state1 = splitMix.next()
        state2 = splitMix.next()
        state3 = splitMix.next()
    }

    /// Returns the next 64 pseudo-random bits and advances the state.
    public mutating func next() -> UInt64 {
        let result = (state1 &* 5).rotatedLeft(by: 7) &* 9
        let shifted = state1 << 17
        state2 ^= state0
        state3 ^= state1
        state1 ^= state2
        state0 ^= state3
        state2 ^= shifted
        state3 = state3.rotatedLeft(by: 45)
        return result
    }
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014),
/// used only to spread a 64-bit seed over xoshiro's 256-bit state.
private struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(by count: UInt64) -> UInt64 {
        (self << count) | (self >> (64 - count))
    }
}
