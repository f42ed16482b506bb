import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import Synchronization

/// `overload-scenario tail`: calls at a fixed rate against a backend that holds a fraction of its
/// answers for a second, with and without hedging.
struct SlowTailScenario {
    /// What one client did.
    struct Row {
        var client: String
        var calls = 0
        var succeeded = 0
        /// Requests the backend received.
        var attempts = 0
        /// Answers the backend held back.
        var stalled = 0
        /// Every call's latency, from when it was due, in seconds, sorted.
        var latencies: [Double] = []

        func percentile(_ fraction: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            let rank = Int((fraction * Double(latencies.count)).rounded(.up))
            return latencies[min(max(rank, 1), latencies.count) - 1]
        }
    }

    /// What the calls record, from many tasks.
    private final class Log: Sendable {
        /// Each call's latency, in seconds.
        let latencies = Mutex<[Double]>([])
        let succeeded = Atomic<Int>(0)
    }

    let options: Options

    init(_ options: Options) {
        self.options = options
    }

    func run() async throws {
        print(
            "Slow tail: calls start at \(options.rate)/s for \(options.seconds) s; the backend holds "
                + "\(options.stallPercent) % of its answers for \(options.stallMilliseconds) ms\n")
        print("| client | calls | succeeded | attempts | extra attempts | answers held | p50 | p90 | p99 | max |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        var rows: [Row] = []
        for hedged in [false, true] {
            let row = try await measure(hedged: hedged)
            rows.append(row)
            let extra = Double(row.attempts - row.calls) / Double(max(1, row.calls))
            let cells =
                [
                    row.client, "\(row.calls)", "\(row.succeeded)", "\(row.attempts)",
                    String(format: "%.1f %%", 100 * extra), "\(row.stalled)",
                ] + [0.5, 0.9, 0.99, 1].map { Self.milliseconds(row.percentile($0)) }
            print("| " + cells.joined(separator: " | ") + " |")
        }
        let (without, with) = (rows[0], rows[1])
        print(
            String(
                format: "\nWith hedging, p99 is %.1f× lower, for %.1f %% more attempts.",
                without.percentile(0.99) / max(with.percentile(0.99), 1e-9),
                100 * Double(with.attempts - without.attempts) / Double(max(1, without.attempts))))
    }

    private func measure(hedged: Bool) async throws -> Row {
        let route = LoopbackRoute("GET", "/tasks") { _ in .json(#"[{"id":1}]"#) }
        let server = try await LoopbackServer.start(routes: [route])
        server.faults.reset(seed: options.seed)
        server.faults.inject(
            LoopbackFaultRule(
                fault: .delay(.milliseconds(options.stallMilliseconds)),
                trigger: .probability(Double(options.stallPercent) / 100)))
        // A connection for every attempt that may be in flight, as `rebound load` sets it.
        let transport = CurlTransport(
            configuration: .init(maxCachedConnections: 1_000, maxConnectionsPerHost: 1_000))
        defer { transport.shutdown() }
        let api = try APIDataManager(
            baseURL: server.baseURL, transport: transport, handlers: [BackendTemporaryErrorHandler()])
        var configured = Endpoint<TransportResponse, Code>(raw: .get, "/tasks", errorCode: .listFailed)
        if hedged {
            configured.options.hedging = HedgingPolicy(delay: .fixed(.milliseconds(options.hedgeMilliseconds)))
        }
        let endpoint = configured

        let clock = ContinuousClock()
        let start = clock.now
        let log = Log()
        let total = options.rate * options.seconds
        await withDiscardingTaskGroup { group in
            for index in 0..<total {
                let due = start + .seconds(Double(index) / Double(options.rate))
                try? await clock.sleep(until: due)
                group.addTask {
                    if (try? await api.send(endpoint)) != nil { log.succeeded.add(1, ordering: .relaxed) }
                    let latency = due.duration(to: clock.now)
                    let seconds =
                        Double(latency.components.seconds) + Double(latency.components.attoseconds) / 1e18
                    log.latencies.withLock { $0.append(seconds) }
                }
            }
        }
        var row = Row(client: hedged ? "hedged after \(options.hedgeMilliseconds) ms" : "not hedged")
        row.latencies = log.latencies.withLock { $0 }.sorted()
        row.calls = row.latencies.count
        row.succeeded = log.succeeded.load(ordering: .relaxed)
        row.attempts = server.requests(to: "/tasks")
        row.stalled = server.faults.injected["delay", default: 0]
        try await server.shutdown()
        return row
    }

    private static func milliseconds(_ seconds: Double) -> String {
        String(format: "%.1f ms", seconds * 1_000)
    }
}
