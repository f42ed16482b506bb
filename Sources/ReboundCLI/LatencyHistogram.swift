#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Call latencies in bounded memory: counts in buckets 1 % wide, from 1 µs to a day and more, so
/// that a run of any length keeps a few kilobytes however many calls it makes.
///
/// A percentile is the upper bound of the bucket that holds the nearest-rank sample, capped at the
/// largest latency recorded: at most 1 % above the exact value, never above the slowest call.
struct LatencyHistogram: Sendable {
    /// The lower bound of bucket 1, in seconds; bucket 0 holds everything faster.
    static let smallest = 1e-6
    /// How much wider each bucket's bound is than the one before.
    static let growth = 1.01
    /// Buckets from 1 µs past 10⁵ s (a day is 86,400 s, the longest a call may take); a slower
    /// latency goes in the last.
    static let bucketCount = 2_600

    private var counts = [Int](repeating: 0, count: bucketCount)
    private(set) var count = 0
    private var largest = 0.0

    /// Counts one latency, in seconds.
    mutating func record(_ seconds: Double) {
        counts[Self.bucket(of: seconds)] += 1
        count += 1
        largest = max(largest, seconds)
    }

    /// The latency under which `fraction` (0 to 1) of the calls ended; 0 when none was recorded.
    func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (bucket, bucketCount) in counts.enumerated() {
            seen += bucketCount
            if seen >= rank { return min(Self.upperBound(of: bucket), largest) }
        }
        return largest
    }

    private static func bucket(of seconds: Double) -> Int {
        guard seconds >= smallest else { return 0 }
        let index = Int(log(seconds / smallest) / log(growth)) + 1
        return min(index, bucketCount - 1)
    }

    private static func upperBound(of bucket: Int) -> Double {
        smallest * pow(growth, Double(bucket))
    }
}
