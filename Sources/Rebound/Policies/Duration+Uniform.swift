extension Duration {
    /// Returns a duration drawn uniformly from `range`, in whole nanoseconds above its lower bound.
    ///
    /// The standard library has `random(in:using:)` for numbers but not for `Duration`, and its
    /// integer version may change how it consumes the generator between releases. This one is
    /// specified exactly, so a seeded generator gives the same durations on every platform and
    /// release: the result is `range.lowerBound` plus a whole number of nanoseconds, chosen
    /// without bias by rejection sampling on the generator's high bits. A nanosecond is the
    /// resolution of every clock a caller can sleep on, and it keeps the results readable.
    ///
    /// It never traps: a range whose bounds are equal (or closer than a nanosecond) returns its
    /// lower bound without consuming randomness, and the widest possible range works too.
    ///
    /// ```swift
    /// var generator = SeededRandom(seed: 7)
    /// let wait = Duration.uniform(in: .zero ... .milliseconds(200), using: &generator)
    /// ```
    ///
    /// - Parameters:
    ///   - range: The durations to choose from, both bounds included.
    ///   - generator: The source of randomness.
    /// - Returns: A duration within `range`.
    static func uniform(
        in range: ClosedRange<Duration>,
        using generator: inout some RandomNumberGenerator
    ) -> Duration {
        let lower = range.lowerBound.attosecondCount
        // Bounds are at most about 2^124 attoseconds apart, so the width fits an unsigned 128-bit integer.
        let width = UInt128(bitPattern: range.upperBound.attosecondCount &- lower)
        let steps = width / UInt128(Duration.attosecondsPerNanosecond)
        guard steps > 0 else { return range.lowerBound }
        let offset = Int128(
            bitPattern: generator.uniformInteger(upTo: steps) * UInt128(Duration.attosecondsPerNanosecond))
        return Duration(saturatingAttoseconds: lower &+ offset)
    }
}

extension RandomNumberGenerator {
    /// Returns an integer uniformly distributed in `0...bound`, consuming the generator in a
    /// documented way: draw the top `bitWidth(bound)` bits (one word for bounds below 2^64, two
    /// otherwise) and retry while the draw exceeds `bound`, which happens less than half the time.
    mutating func uniformInteger(upTo bound: UInt128) -> UInt128 {
        guard bound > 0 else { return 0 }
        let bits = UInt128.bitWidth - bound.leadingZeroBitCount
        while true {
            let draw: UInt128
            if bits <= 64 {
                draw = UInt128(next() >> (64 - bits))
            } else {
                let high = UInt128(next())
                let low = UInt128(next())
                draw = ((high << 64) | low) >> (128 - bits)
            }
            if draw <= bound { return draw }
        }
    }
}

extension Duration {
    static let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000
    static let attosecondsPerNanosecond: Int128 = 1_000_000_000

    /// The whole duration in attoseconds.
    ///
    /// Computed from `components` rather than the `attoseconds` property, which needs macOS 26;
    /// every `Duration` fits, since its seconds are an `Int64`.
    var attosecondCount: Int128 {
        let (seconds, attoseconds) = components
        return Int128(seconds) * Duration.attosecondsPerSecond + Int128(attoseconds)
    }

    /// Creates a duration of `attoseconds`, clamped to what `Duration(secondsComponent:attosecondsComponent:)`
    /// can represent, so arithmetic that overshoots saturates instead of trapping.
    init(saturatingAttoseconds attoseconds: Int128) {
        let lowest = Int128(Int64.min) * Duration.attosecondsPerSecond
        let highest = Int128(Int64.max) * Duration.attosecondsPerSecond + (Duration.attosecondsPerSecond - 1)
        let clamped = min(max(attoseconds, lowest), highest)
        let (seconds, remainder) = clamped.quotientAndRemainder(dividingBy: Duration.attosecondsPerSecond)
        self.init(secondsComponent: Int64(seconds), attosecondsComponent: Int64(remainder))
    }
}
