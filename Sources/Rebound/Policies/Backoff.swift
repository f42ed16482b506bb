/// How long to wait before each retry: exponential growth up to a cap, randomized by a ``Jitter``.
///
/// Retry `k` (counting from 0) has the exponential value `v = min(cap, base × multiplier^k)`, and
/// the ``jitter`` turns `v` into the actual wait (see ``Jitter`` for the formulas). Every method is
/// a pure function of the configuration, the retry number and the generator passed in: nothing
/// here reads a clock or sleeps, so the pipeline owns waiting, and a test pins the waits with a
/// ``SeededRandom``.
///
/// The defaults give this curve, reaching the cap at the seventh retry:
///
/// | retry `k` | 0 | 1 | 2 | 3 | 4 | 5 | 6 and later |
/// |---|---|---|---|---|---|---|---|
/// | exponential value | 0.2 s | 0.4 s | 0.8 s | 1.6 s | 3.2 s | 6.4 s | 10 s |
/// | mean wait with full jitter | 0.1 s | 0.2 s | 0.4 s | 0.8 s | 1.6 s | 3.2 s | 5 s |
///
/// and why each default is what it is:
///
/// | property | default | why |
/// |---|---|---|
/// | ``base`` | 0.2 s | Transient failures (a connection reset, a pod restarting behind a load balancer, a 503 while a server sheds load) commonly clear within a few hundred milliseconds; waiting less mostly adds load before anything could have changed, and with full jitter the first wait averages 0.1 s, which a person barely notices. |
/// | ``multiplier`` | 2 | Doubling halves the retry rate of a failing herd at every step, so load on a struggling server decays geometrically; it is the usual choice (and the one the AWS post analyses). |
/// | ``cap`` | 10 s | A single wait longer than that rarely helps an interactive request, whose whole budget is typically tens of seconds (``TransportOptions/timeout`` defaults to 60 s); with full jitter the capped waits still average 5 s, enough to keep a herd spread. |
/// | ``jitter`` | ``Jitter/full`` | Full jitter spread a herd of contending clients best, finishing with the least total work, in the AWS Architecture Blog post "Exponential Backoff and Jitter" (2015). |
///
/// ## Invalid configurations
///
/// Nothing here traps; out-of-range settings are clamped when a delay is computed (the stored
/// properties keep what was set):
/// - a negative ``cap`` is treated as zero;
/// - a negative ``base`` is treated as zero, and a ``base`` above the ``cap`` as the ``cap``, because
///   the cap is the promise callers rely on (no single wait is ever longer);
/// - a ``multiplier`` below 1 (zero, negative and NaN included) is treated as 1, giving a constant
///   wait of ``base``: a "backoff" that shrinks would retry faster the longer a server stays down.
///
/// ```swift
/// var generator = SystemRandomNumberGenerator()
/// let backoff = Backoff()
/// let wait = backoff.delay(forRetry: 2, previous: nil, using: &generator)  // within 0...0.8 s
/// ```
public struct Backoff: Sendable, Hashable {
    /// The exponential value of the first retry, and the lower bound of ``Jitter/decorrelated``.
    public var base: Duration
    /// The factor by which the exponential value grows from one retry to the next.
    public var multiplier: Double
    /// The longest any single wait may be.
    public var cap: Duration
    /// How each wait is randomized around its exponential value.
    public var jitter: Jitter

    /// Creates a backoff; the defaults and their reasons are tabulated in the type's documentation.
    ///
    /// - Parameters:
    ///   - base: The exponential value of retry 0. Default 0.2 s.
    ///   - multiplier: The growth factor per retry. Default 2.
    ///   - cap: The longest single wait. Default 10 s.
    ///   - jitter: How waits are randomized. Default ``Jitter/full``.
    public init(
        base: Duration = .milliseconds(200),
        multiplier: Double = 2,
        cap: Duration = .seconds(10),
        jitter: Jitter = .full
    ) {
        self.base = base
        self.multiplier = multiplier
        self.cap = cap
        self.jitter = jitter
    }

    /// The exponential value of retry `k`: `min(cap, base × multiplier^k)`, before any jitter.
    ///
    /// It saturates at the cap for any `k`, however large, and never overflows: the power is
    /// computed in `Double` by repeated squaring (exactly reproducible on every platform, unlike a
    /// libm `pow`), and anything at or above the cap, infinity included, becomes the cap.
    ///
    /// - Parameter k: The retry number, counting from 0; a negative `k` is treated as 0.
    /// - Returns: A duration in `base...cap` (after the clamping described on the type).
    public func exponential(forRetry k: Int) -> Duration {
        let base = effectiveBase
        let cap = effectiveCap
        let factor = Self.power(effectiveMultiplier, max(0, k))
        guard base > .zero, factor > 1 else { return base }
        let attoseconds = Double(base.attosecondCount) * factor
        guard attoseconds < Double(cap.attosecondCount) else { return cap }
        let value = Duration(saturatingAttoseconds: Int128(attoseconds.rounded()))
        return min(cap, max(base, value))
    }

    /// The wait before retry `k`, randomized by ``jitter``.
    ///
    /// With `v = exponential(forRetry: k)`:
    /// - ``Jitter/none``: `v`, consuming no randomness;
    /// - ``Jitter/full``: uniform in `0...v`;
    /// - ``Jitter/equal``: uniform in `v/2...v`;
    /// - ``Jitter/decorrelated``: `min(cap, uniform in base...max(base, 3 × previous))`, with a
    ///   missing `previous` taken as `base`; `k` is not used.
    ///
    /// Random draws are specified to the nanosecond, independent of the standard library's, so a
    /// seeded generator gives the same waits on every platform and release.
    ///
    /// - Parameters:
    ///   - k: The retry number, counting from 0; a negative `k` is treated as 0.
    ///   - previous: The wait before the previous retry, or `nil` before the first. Only
    ///     ``Jitter/decorrelated`` uses it.
    ///   - generator: The source of randomness.
    /// - Returns: A duration in `0...cap` (after the clamping described on the type).
    public func delay(
        forRetry k: Int,
        previous: Duration?,
        using generator: inout some RandomNumberGenerator
    ) -> Duration {
        switch jitter {
        case .none:
            return exponential(forRetry: k)
        case .full:
            return .uniform(in: .zero...exponential(forRetry: k), using: &generator)
        case .equal:
            let value = exponential(forRetry: k)
            return .uniform(in: (value / 2)...value, using: &generator)
        case .decorrelated:
            let base = effectiveBase
            // Any Duration is under 2^124 attoseconds, so three times it cannot overflow Int128.
            let tripled = Duration(saturatingAttoseconds: (previous ?? base).attosecondCount * 3)
            return min(effectiveCap, .uniform(in: base...max(base, tripled), using: &generator))
        }
    }

    /// The waits before retries `0..<retries`, in order.
    ///
    /// Each wait is ``delay(forRetry:previous:using:)`` with the wait before it as `previous`, which
    /// is what ``Jitter/decorrelated`` grows from. Every wait is at most the cap, so the total is at
    /// most `retries × cap`.
    ///
    /// - Parameters:
    ///   - retries: How many waits to compute; zero or negative gives none.
    ///   - generator: The source of randomness.
    /// - Returns: `max(0, retries)` durations.
    public func schedule(retries: Int, using generator: inout some RandomNumberGenerator) -> [Duration] {
        var waits: [Duration] = []
        var previous: Duration?
        for k in 0..<max(0, retries) {
            let wait = delay(forRetry: k, previous: previous, using: &generator)
            waits.append(wait)
            previous = wait
        }
        return waits
    }

    private var effectiveCap: Duration { max(.zero, cap) }

    private var effectiveBase: Duration { min(max(.zero, base), effectiveCap) }

    private var effectiveMultiplier: Double { multiplier >= 1 ? multiplier : 1 }

    /// `x^n` for `x ≥ 1` and `n ≥ 0` by repeated squaring: at most 63 steps, each an IEEE 754
    /// multiplication, which every platform rounds identically. Overflow gives infinity.
    private static func power(_ x: Double, _ n: Int) -> Double {
        var result = 1.0
        var square = x
        var exponent = n
        while exponent > 0, result.isFinite {
            if exponent & 1 == 1 { result *= square }
            exponent >>= 1
            if exponent > 0 { square *= square }
        }
        return result
    }
}

extension Backoff {
    /// 0.2 s × 2^k, capped at 10 s, full jitter: an interactive call that rides out a blip
    /// within a person's patience.
    public static let `default` = Backoff()

    /// No wait between attempts: for tests, and for retries whose wait comes from elsewhere
    /// (`Retry-After` alone).
    public static let disabled = Backoff(base: .zero, multiplier: 1, cap: .zero, jitter: .none)

    /// 1 s × 2^k, capped at 5 min, full jitter: background work (a sync, an upload queue) that
    /// nobody watches, where waiting longer costs nothing and spares a struggling server.
    public static let background = Backoff(base: .seconds(1), multiplier: 2, cap: .seconds(300), jitter: .full)
}
