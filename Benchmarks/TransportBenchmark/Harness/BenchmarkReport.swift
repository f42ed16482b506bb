import Foundation

/// The outcome of one measured phase, printed as the one JSON line every benchmark client prints.
///
/// ```
/// {"client":"rebound","workload":"sequential","requests":20000,"seconds":2.1,"rps":9523.8,
///  "p50_us":98.2,"p99_us":180.4,"mbps":1.0,"peak_rss_kib":29000,"start_rss_kib":22000,
///  "cpu_seconds":1.9,"failures":0}
/// ```
///
/// `mbps` is response-body megabytes (10^6 bytes) per second; `cpu_seconds` covers the measured
/// phase only, so that `cpu_seconds / requests` is the CPU cost of one request; `peak_rss_kib` is the
/// process's peak at the end of the run, and `start_rss_kib` its peak when `main` began, before the
/// client existed: the runtime and the libraries loaded (which for a Swift client include every
/// library the executable links, FoundationNetworking too); `failures` counts the warm-up's too.
struct BenchmarkReport: Sendable {
    var client: String
    var workload: String
    /// How many requests were measured.
    var requests: Int
    /// The wall-clock time of the measured phase.
    var seconds: Double
    /// The latency of each measured request in nanoseconds, sorted ascending.
    var sortedLatencies: [Int]
    /// The total length of the measured responses' bodies.
    var bodyBytes: Int
    var peakResidentKiB: Int
    var startResidentKiB: Int
    var cpuSeconds: Double
    /// Requests that threw, or returned a status other than 200 or a body of the wrong length.
    var failures: Int

    /// The latency below which `percent` percent of the requests finished (nearest rank), in microseconds.
    func latencyMicroseconds(percentile percent: Int) -> Double {
        guard !sortedLatencies.isEmpty else { return 0 }
        let rank = max(1, (percent * sortedLatencies.count + 99) / 100)
        return Double(sortedLatencies[rank - 1]) / 1_000
    }

    /// The report as one line of JSON, its keys in a fixed order.
    var jsonLine: String {
        let fields: [(String, String)] = [
            ("client", "\"\(client)\""),
            ("workload", "\"\(workload)\""),
            ("requests", "\(requests)"),
            ("seconds", String(format: "%.6f", seconds)),
            ("rps", String(format: "%.1f", Double(requests) / seconds)),
            ("p50_us", String(format: "%.1f", latencyMicroseconds(percentile: 50))),
            ("p99_us", String(format: "%.1f", latencyMicroseconds(percentile: 99))),
            ("mbps", String(format: "%.1f", Double(bodyBytes) / seconds / 1_000_000)),
            ("peak_rss_kib", "\(peakResidentKiB)"),
            ("start_rss_kib", "\(startResidentKiB)"),
            ("cpu_seconds", String(format: "%.6f", cpuSeconds)),
            ("failures", "\(failures)"),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
