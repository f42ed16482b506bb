// The Swift side of Rebound's transport benchmark: one client, one workload, one JSON line.
//
// scripts/benchmark-transport.sh runs this once per client and workload, next to the C program in
// Benchmarks/c that drives libcurl directly, and compares them. See BenchmarkOptions for the flags.

import ReboundCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The clients this executable can run, by their `--client` name.
enum ClientName: String, CaseIterable {
    /// Rebound's `CurlTransport`.
    case rebound
    /// Rebound's `CurlTransport`, with the benchmark's tasks on the transport's own executor.
    case reboundLoop = "rebound-loop"
    /// Rebound's `CurlTransport` sending the pipeline's request: the same with an Authorization field.
    case reboundAuth = "rebound-auth"
    /// Rebound's `APIDataManager` with the three built-in handlers over `CurlTransport`.
    case pipeline
    /// The same, with the benchmark's tasks on the transport's own executor.
    case pipelineLoop = "pipeline-loop"
    /// `pipeline` against `rebound-auth` in one process, over one transport, in interleaved slices.
    case pipelineAB = "pipeline-ab"
    /// One recovery decision, in-process (no network; `--url` and `--expect-bytes` are ignored).
    case decision
    /// The circuit breaker and the bulkhead, in-process (no network; `--url` and `--expect-bytes`
    /// are ignored).
    case overload
    /// Foundation's `URLSession`.
    case urlsession
}

// Before anything else, so that it holds only what the runtime and the linked libraries cost.
let startUsage = ResourceUsage.current()

// REBOUND_CURL_MEMORY=1: the app's opt-in to libcurl's receive buffer cache, before any transport.
if let value = getenv("REBOUND_CURL_MEMORY"), String(cString: value) == "1" {
    CurlTransport.reuseReceiveBuffers()
}

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printToStandardError("\(error)\n\(BenchmarkOptions.usage)")
    exit(2)
}

guard let pipelineStore = PipelineClient.Store.fromEnvironment else {
    printToStandardError("PIPELINE_STORE must be memory or app")
    exit(2)
}

if ClientName(rawValue: options.client) == .decision {
    if options.workload == "fixed" {
        print(try await RecoveryDecisionBenchmark.runFixed(iterations: options.requests))
    } else {
        print(try await RecoveryDecisionBenchmark.run(iterations: options.requests))
    }
    exit(0)
}

if ClientName(rawValue: options.client) == .overload {
    print(try await OverloadBenchmark.run(iterations: options.requests))
    exit(0)
}

if ClientName(rawValue: options.client) == .pipelineAB {
    let line = try await PipelineABBenchmark.run(options: options, store: pipelineStore, startUsage: startUsage)
    print(line)
    exit(line.hasSuffix("\"failures\":0}") ? 0 : 1)
}

/// A transport that may open `connections` to the server and keep them all for reuse.
func makeTransport(connections: Int) -> CurlTransport {
    CurlTransport(
        configuration: CurlTransport.Configuration(
            maxCachedConnections: max(64, connections), maxConnectionsPerHost: connections))
}

let client: any BenchmarkClient
switch ClientName(rawValue: options.client) {
case .rebound, .reboundLoop:
    client = ReboundClient(url: options.url, transport: makeTransport(connections: options.connections))
case .reboundAuth:
    client = ReboundClient(
        url: options.url, accessToken: PipelineClient.accessToken,
        transport: makeTransport(connections: options.connections))
case .pipeline, .pipelineLoop:
    client = try PipelineClient(
        url: options.url, transport: makeTransport(connections: options.connections), store: pipelineStore)
case .decision, .overload, .pipelineAB:
    fatalError("handled above")
case .urlsession:
    client = URLSessionClient(url: options.url, concurrency: options.concurrency)
case nil:
    let known = ClientName.allCases.map(\.rawValue).joined(separator: ", ")
    printToStandardError("unknown client '\(options.client)'; this executable runs \(known)")
    exit(2)
}

let runner = BenchmarkRunner(client: client, options: options, startUsage: startUsage)
let report: BenchmarkReport
if ClientName(rawValue: options.client) == .reboundLoop, let executor = (client as? ReboundClient)?.executor {
    report = await withTaskExecutorPreference(executor) { await runner.run() }
} else if ClientName(rawValue: options.client) == .pipelineLoop, let executor = (client as? PipelineClient)?.executor {
    report = await withTaskExecutorPreference(executor) { await runner.run() }
} else {
    report = await runner.run()
}
try? await client.shutdown()
print(report.jsonLine)
if report.failures > 0 {
    printToStandardError("\(report.failures) of \(options.warmup + options.requests) requests failed")
    exit(1)
}
