// AsyncHTTPClient's side of Rebound's transport benchmark: one workload, one JSON line, the same
// flags and output as transport-benchmark. See Benchmarks/TransportBenchmark/Harness.

import Foundation

// Before anything else, so that it holds only what the runtime and the linked libraries cost.
let startUsage = ResourceUsage.current()

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printToStandardError("\(error)\n\(BenchmarkOptions.usage)")
    exit(2)
}
guard options.client == "ahc" else {
    printToStandardError("unknown client '\(options.client)'; this executable runs ahc")
    exit(2)
}

let client = AsyncHTTPClientBenchmarkClient(url: options.url, concurrency: options.concurrency)
let report = await BenchmarkRunner(client: client, options: options, startUsage: startUsage).run()
try? await client.shutdown()
print(report.jsonLine)
if report.failures > 0 {
    printToStandardError("\(report.failures) of \(options.warmup + options.requests) requests failed")
    exit(1)
}
