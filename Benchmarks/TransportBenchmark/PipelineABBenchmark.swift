import Foundation
import ReboundCurl

/// The pipeline against the bare transport in one process, in interleaved slices: the cost of
/// Rebound's API layer on the success path, with the machine's drift taken out.
///
/// `pipeline` and `rebound-auth` run as separate processes, minutes apart, and on a shared
/// machine their per-round ratio swings by more than the cost being measured. Here one
/// transport (one connection cache) serves both: the data manager with the three built-in handlers,
/// and the same request sent to the transport directly, with the same Authorization field. They
/// take turns in short slices, in the order AB BA AB …, so that drift during the run hits both
/// alike, and each pair of neighbouring slices gives one ratio of requests per second.
enum PipelineABBenchmark {
    /// How many pairs of slices a run is cut into.
    static let pairs = 20

    static func run(
        options: BenchmarkOptions,
        store: PipelineClient.Store,
        startUsage: ResourceUsage
    ) async throws -> String {
        let transport = CurlTransport()
        defer { transport.shutdown() }
        let bare = ReboundClient(url: options.url, accessToken: PipelineClient.accessToken, transport: transport)
        let pipeline = try PipelineClient(url: options.url, transport: transport, store: store)

        var warmup = options
        warmup.requests = max(1, options.warmup)
        warmup.warmup = 0
        var slice = options
        slice.requests = max(1, options.requests / pairs)
        slice.warmup = 0
        func runner(_ client: any BenchmarkClient, _ options: BenchmarkOptions) -> BenchmarkRunner {
            BenchmarkRunner(client: client, options: options, startUsage: startUsage)
        }

        var failures = await runner(bare, warmup).run().failures + runner(pipeline, warmup).run().failures
        var bareReports: [BenchmarkReport] = []
        var pipelineReports: [BenchmarkReport] = []
        for pair in 0..<pairs {
            if pair.isMultiple(of: 2) {
                bareReports.append(await runner(bare, slice).run())
                pipelineReports.append(await runner(pipeline, slice).run())
            } else {
                pipelineReports.append(await runner(pipeline, slice).run())
                bareReports.append(await runner(bare, slice).run())
            }
        }
        failures += (bareReports + pipelineReports).reduce(0) { $0 + $1.failures }

        let ratios = zip(pipelineReports, bareReports).map { $0.requestsPerSecond / $1.requestsPerSecond }
        let fields: [(String, String)] = [
            ("client", "\"pipeline-ab\""),
            ("workload", "\"\(options.workload)\""),
            ("store", "\"\(store.rawValue)\""),
            ("requests_per_slice", "\(slice.requests)"),
            ("pairs", "\(pairs)"),
            ("bare_rps", format(median(bareReports.map(\.requestsPerSecond)), 1)),
            ("pipeline_rps", format(median(pipelineReports.map(\.requestsPerSecond)), 1)),
            ("ratio", format(median(ratios), 3)),
            ("ratio_min", format(ratios.min() ?? 0, 3)),
            ("ratio_max", format(ratios.max() ?? 0, 3)),
            ("bare_cpu_us", format(median(bareReports.map(\.cpuMicrosecondsPerRequest)), 2)),
            ("pipeline_cpu_us", format(median(pipelineReports.map(\.cpuMicrosecondsPerRequest)), 2)),
            ("failures", "\(failures)"),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    private static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}

extension BenchmarkReport {
    fileprivate var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
    fileprivate var cpuMicrosecondsPerRequest: Double { requests > 0 ? cpuSeconds * 1e6 / Double(requests) : 0 }
}
