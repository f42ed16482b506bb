import CoreMetrics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The token buckets of one ``AdaptiveRateLimitHandler``, as a pure state machine: events in (an
/// attempt asks for a token, gives up waiting, a response arrives), decisions out. No I/O, no
/// clock: the handler passes the time and performs the waits. The one thing it records itself is
/// each limiting bucket's rate in its gauges, under the handler's lock, so that they follow the
/// changes in their order and lose a bucket when it is forgotten.
///
/// A bucket limits nothing until its host first throttles (a 429, or fields that say nothing
/// remains), as in the AWS SDKs' adaptive mode; from then on every attempt takes a token. Tokens
/// accrue at the bucket's rate up to its capacity, `max(rate, 1)`, and none is taken while the
/// server asked for a pause. A token is taken only when one is there, so that over any window
/// of `w` seconds at most `capacity + rate × w` attempts go, for the largest capacity and rate
/// of the window.
struct RateLimitRegistry {
    /// One key's bucket and what adapts its rate.
    ///
    /// An object, so that every change is made in place with one lookup of its key (a copy taken
    /// out of the dictionary and put back costs a second). The registry that holds the buckets
    /// lives in its handler's lock and is never copied.
    final class Bucket {
        /// Whether the bucket limits: from the first throttle on.
        var isLimiting = false
        /// Tokens per second.
        var rate: Double = 0
        var capacity: Double = 1
        var tokens: Double = 0
        /// When tokens were last added, in seconds on the pipeline's clock.
        var lastRefill: Double
        /// No token accrues before this: the server asked for a pause.
        var pausedUntil: Double = -.infinity
        /// The attempts waiting for a token, in order of arrival.
        var queue: [AttemptID] = []
        /// CUBIC's W_max: the rate at the last throttle.
        var lastMaximum: Double = 0
        /// CUBIC's K: how long after the last throttle the rate is back at `lastMaximum`.
        var recoveryTime: Double = 0
        var lastThrottle: Double
        /// Responses per second, smoothed.
        var measuredRate: Double = 0
        var measuredCount: Double = 0
        var measuredBucket: Double
        /// Whether an interval has ended, so that `measuredRate` means something.
        var hasMeasured = false
        /// The quota the server last stated, per second: a ceiling on the rate.
        var statedQuota: Double?
        /// When the bucket was last used, in the registry's ticks: for eviction.
        var lastUsed: UInt64

        init(now: Double, lastUsed: UInt64) {
            lastRefill = now
            lastThrottle = now
            measuredBucket = now.rounded(.down)
            self.lastUsed = lastUsed
        }

        /// Adds the tokens accrued since the last refill, up to the capacity.
        func refill(at now: Double) {
            guard now > lastRefill else { return }
            tokens = min(capacity, tokens + (now - lastRefill) * rate)
            lastRefill = now
        }
    }

    enum Admission: Equatable {
        /// Send: a token was taken (or the bucket does not limit).
        case go
        /// Ask again after this wait.
        case wait(Duration)
        /// The wait for a token passes the deadline: refuse the attempt.
        case refuse(wait: Duration)
    }

    /// What a response told the bucket.
    enum Signal: Equatable {
        /// A throttling status (429) to an attempt sent at `sentAt`, on the pipeline's clock.
        case throttled(sentAt: Duration)
        /// Any other answer.
        case answered
    }

    /// A token is taken when this close to a whole one: waits are rounded to nanoseconds, and a
    /// wait in naps adds up the rounding of each.
    static let tolerance = 1e-6

    /// The longest a waiter sleeps before asking again, outside a pause.
    static let longestNap = Duration.milliseconds(100)

    let configuration: AdaptiveRateLimitHandler.Configuration
    private(set) var buckets: [String: Bucket] = [:]
    /// The key each waiting attempt waits on.
    private var waiting: [AttemptID: String] = [:]
    private var ticks: UInt64 = 0
    /// Each limiting bucket's rate, per second, and each bucket's counters; `nil` without a
    /// metrics backend.
    private var series: KeyedSeries?

    init(configuration: AdaptiveRateLimitHandler.Configuration, series: KeyedSeries? = nil) {
        self.configuration = configuration
        self.series = series
    }

    /// `key`'s counter `label`, made on first use; `nil` without a metrics backend, or when the
    /// bucket was forgotten meanwhile (its series went with it).
    mutating func counter(_ label: String, for key: String) -> Counter? {
        guard buckets[key] != nil else { return nil }
        return series?.counter(label, for: key)
    }

    /// Whether attempt `id` may go to `key` at `now`: at once, after a wait, or not at all when the
    /// wait would pass `deadline`. `now` is read only when the bucket limits (or is new).
    mutating func admit(
        _ id: AttemptID, key: String, now readNow: @autoclosure () -> Duration, deadline: Duration
    ) -> Admission {
        let bucket = self.bucket(for: key, now: readNow())
        guard bucket.isLimiting else { return .go }
        let now = readNow()
        let (seconds, timeLeft) = (now.seconds, deadline - now)
        bucket.refill(at: seconds)
        // Every attempt ahead in the queue needs its token first.
        let position = bucket.queue.firstIndex(of: id) ?? bucket.queue.count
        let needed = Double(position + 1)
        if seconds >= bucket.pausedUntil, bucket.tokens + Self.tolerance >= needed {
            bucket.tokens = max(0, bucket.tokens - 1)
            leave(id, from: bucket)
            return .go
        }
        // Tokens accrue during a pause, but none is taken before it ends.
        let start = max(seconds, bucket.pausedUntil)
        let atStart = min(bucket.capacity, bucket.tokens + (start - seconds) * bucket.rate)
        let wait = Duration.seconds(roundedUp: start - seconds + max(0, needed - atStart) / bucket.rate)
        // A microsecond's grace: a wait asked again after each nap is rounded up again.
        guard wait <= timeLeft + .microseconds(1) else {
            leave(id, from: bucket)
            return .refuse(wait: wait)
        }
        if position == bucket.queue.count {
            bucket.queue.append(id)
            waiting[id] = key
        }
        // A pause ends when the server said; a token comes at the rate, which every answer may
        // change: ask again soon rather than sleep through a faster one.
        let pause = Duration.seconds(roundedUp: start - seconds)
        return .wait(pause > .zero ? pause : min(wait, Self.longestNap))
    }

    /// Takes `id` out of its queue, if it waits in one (it gave up, or was cancelled).
    mutating func leave(_ id: AttemptID) {
        guard let key = waiting[id], let bucket = buckets[key] else { return }
        leave(id, from: bucket)
    }

    /// Hears a response from `key` at `now`: measures the rate, and cuts it (a throttle) or grows
    /// it back; the fields may pause the bucket, cap its tokens or state a quota.
    mutating func observe(_ signal: Signal, fields: RateLimitFields, key: String, now: Duration) {
        let seconds = now.seconds
        let bucket = self.bucket(for: key, now: now)
        let measured = measure(bucket, at: seconds)
        if let quota = fields.quotaPerSecond { bucket.statedQuota = quota }
        let pause = fields.pause.map { min($0, configuration.maximumPause).seconds }
        switch signal {
        case .throttled where (pause ?? 0) > 0:
            // The server said when to come back: its pause, not a guess at its rate, answers the
            // throttle, and cutting as well would leave the quota it renews unused.
            startLimitingUncut(bucket, measured: measured, at: seconds)
        case .throttled(let sentAt) where bucket.isLimiting && sentAt.seconds < bucket.lastThrottle:
            // Sent before the last cut, at the rate that was cut already: one congestion event,
            // one cut (as TCP cuts once per round trip), or the attempts in flight at a throttle
            // would cut the rate to its floor between them.
            break
        case .throttled:
            let rate = bucket.isLimiting ? min(measured, bucket.rate) : measured
            startLimiting(bucket, at: seconds)
            bucket.lastMaximum = rate
            bucket.recoveryTime = cbrt(rate * (1 - configuration.beta) / configuration.scaleConstant)
            bucket.lastThrottle = seconds
            setRate(bucket, rate * configuration.beta, measured: measured, at: seconds)
            // The tokens saved were too many for the server: a burst of them would throttle again.
            bucket.tokens = 0
        case .answered:
            // Nothing left: limit from here.
            if fields.remaining == 0 { startLimitingUncut(bucket, measured: measured, at: seconds) }
            guard bucket.isLimiting else { return }
            let elapsed = seconds - bucket.lastThrottle - bucket.recoveryTime
            let cubic = configuration.scaleConstant * elapsed * elapsed * elapsed + bucket.lastMaximum
            setRate(bucket, cubic, measured: measured, at: seconds)
        }
        if bucket.isLimiting { series?.record(bucket.rate, for: key) }
        if let remaining = fields.remaining {
            bucket.tokens = min(bucket.tokens, Double(remaining))
        }
        if let pause, signal != .answered || fields.remaining == 0 {
            // The tokens saved were too many for the server: they go, and those that accrue
            // during the pause wait for its end.
            bucket.refill(at: seconds)
            bucket.tokens = 0
            bucket.pausedUntil = max(bucket.pausedUntil, seconds + pause)
        }
    }

    // MARK: - Helpers

    /// Starts limiting, if the bucket does not yet, at the rate measured so far, growing from
    /// there on CUBIC's curve.
    private func startLimitingUncut(_ bucket: Bucket, measured: Double, at now: Double) {
        guard !bucket.isLimiting else { return }
        startLimiting(bucket, at: now)
        bucket.lastMaximum = measured
        bucket.recoveryTime = 0
        bucket.lastThrottle = now
        setRate(bucket, measured, measured: measured, at: now)
    }

    private func startLimiting(_ bucket: Bucket, at now: Double) {
        guard !bucket.isLimiting else { return }
        bucket.isLimiting = true
        bucket.tokens = 0
        bucket.lastRefill = now
    }

    /// botocore's `TokenBucket.max_rate`: the tokens so far at the old rate, then the new rate,
    /// at most twice the measured one and the stated quota, at least the minimum.
    private func setRate(_ bucket: Bucket, _ proposed: Double, measured: Double, at now: Double) {
        bucket.refill(at: now)
        var rate = min(proposed, configuration.maximumRateScale * measured)
        if let quota = bucket.statedQuota { rate = min(rate, quota) }
        bucket.rate = max(rate.isNaN ? 0 : rate, configuration.minimumRate)
        bucket.capacity = max(bucket.rate, 1)
        bucket.tokens = min(bucket.tokens, bucket.capacity)
    }

    /// botocore's `RateClocker`: responses per interval, smoothed; the rate measured so far.
    ///
    /// Before the first interval ends botocore measures 0, and a throttle then drops the rate to
    /// its floor (0.5 a second), from which it takes seconds to grow back; here the responses so
    /// far over at least one interval stand in until then.
    private func measure(_ bucket: Bucket, at now: Double) -> Double {
        let interval = configuration.measuringInterval.seconds
        let timeBucket = (now / interval).rounded(.down) * interval
        bucket.measuredCount += 1
        if timeBucket > bucket.measuredBucket {
            let current = bucket.measuredCount / (timeBucket - bucket.measuredBucket)
            bucket.measuredRate =
                current * configuration.smoothing + bucket.measuredRate * (1 - configuration.smoothing)
            bucket.measuredCount = 0
            bucket.measuredBucket = timeBucket
            bucket.hasMeasured = true
        }
        guard bucket.hasMeasured else {
            return bucket.measuredCount / max(interval, now - bucket.measuredBucket)
        }
        return bucket.measuredRate
    }

    private mutating func leave(_ id: AttemptID, from bucket: Bucket) {
        guard waiting.removeValue(forKey: id) != nil, let index = bucket.queue.firstIndex(of: id) else { return }
        bucket.queue.remove(at: index)
    }

    /// `key`'s bucket, or a new one that limits nothing (making room for it first).
    private mutating func bucket(for key: String, now: @autoclosure () -> Duration) -> Bucket {
        ticks += 1
        if let bucket = buckets[key] {
            bucket.lastUsed = ticks
            return bucket
        }
        if buckets.count >= configuration.maximumKeys { evict() }
        let bucket = Bucket(now: now().seconds, lastUsed: ticks)
        buckets[key] = bucket
        return bucket
    }

    /// Forgets the least recently used bucket nobody waits on; when all have waiters, the least
    /// recently used, whose waiters then find a new bucket that limits nothing.
    private mutating func evict() {
        let victim =
            buckets.filter { $0.value.queue.isEmpty }.min { $0.value.lastUsed < $1.value.lastUsed }
            ?? buckets.min { $0.value.lastUsed < $1.value.lastUsed }
        guard let victim else { return }
        buckets[victim.key] = nil
        for id in victim.value.queue { waiting[id] = nil }
        series?.forget(victim.key)
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `seconds`, rounded up to the nanosecond, and at most ``RetryAfter/longestDelay``.
    static func seconds(roundedUp seconds: Double) -> Duration {
        guard seconds.isFinite else { return RetryAfter.longestDelay }
        let clamped = min(max(0, seconds), RetryAfter.longestDelay.seconds)
        return .nanoseconds(Int64((clamped * 1e9).rounded(.up)))
    }
}
