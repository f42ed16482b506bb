// Overload scenarios against the loopback mock backend, through the real libcurl transport: what
// the server sees with and without a protection. See docs/resilience.md for the figures.
//
//   swift run -c release overload-scenario storm [--allowed 100] [--seconds 10] [--workers 16] [--bare]
//   swift run -c release overload-scenario outage [--rate 200] [--outage 10] [--before 2] [--after 15]
//   swift run -c release overload-scenario tail [--rate 200] [--seconds 20] [--stall-percent 5] [--stall-ms 1000] [--hedge-ms 100] [--seed 1]
//
// `storm`: the backend accepts `allowed` requests a second and answers the others 429 with the
// IETF draft's RateLimit fields (none with `--bare`). `workers` calls are kept in flight for `seconds` (closed loop),
// through BackendTemporaryErrorHandler alone (its defaults, the retry budget included) and then
// through AdaptiveRateLimitHandler before it. One row per client: calls, how they ended, the
// 429s, and the goodput (requests the backend accepted per second).
//
// `outage`: calls start at a fixed `rate` a second (open loop) for `before` + `outage` + `after`
// seconds; the backend answers every request 503 for the `outage` seconds in the middle. Through
// BackendTemporaryErrorHandler alone, then with CircuitBreakerHandler before it. One row per
// client: the attempts per second that reached the backend during the outage, attempts ÷ calls
// during it, and how long after the backend recovered the first request reached it, against the
// break the breaker was in when it recovered.
//
// `tail`: calls start at a fixed `rate` a second (open loop) for `seconds`; the backend holds
// `stall-percent` % of its answers (drawn from its generator seeded with `seed`) for `stall-ms`.
// Through BackendTemporaryErrorHandler alone, then with the endpoint hedged after `hedge-ms`
// (HedgingPolicy, one hedge). One row per client: calls, attempts the backend received and how
// many more than calls, the answers it held, and the calls' latency percentiles.

import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend

struct Options {
    enum Scenario: String {
        case storm
        case outage
        case tail
    }

    var scenario = Scenario.storm
    var allowed = 100
    var seconds = 10
    var workers = 16
    /// 429s without the RateLimit fields: the limiter has only the statuses to go by.
    var bare = false
    var rate = 200
    var outage = 10
    var before = 2
    var after = 15
    var stallPercent = 5
    var stallMilliseconds = 1_000
    var hedgeMilliseconds = 100
    var seed: UInt64 = 1

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        guard let name = rest.popFirst(), let scenario = Scenario(rawValue: name) else { throw Usage() }
        self.scenario = scenario
        if scenario == .tail { seconds = 20 }
        while let flag = rest.popFirst() {
            if flag == "--bare", scenario == .storm {
                bare = true
                continue
            }
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else { throw Usage() }
            switch (scenario, flag) {
            case (.storm, "--allowed"): allowed = value
            case (.storm, "--seconds"): seconds = min(value, 600)
            case (.storm, "--workers"): workers = min(value, 1_000)
            case (.outage, "--rate"): rate = min(value, 1_000)
            case (.outage, "--outage"): outage = min(value, 600)
            case (.outage, "--before"): before = min(value, 600)
            case (.outage, "--after"): after = min(value, 600)
            case (.tail, "--rate"): rate = min(value, 1_000)
            case (.tail, "--seconds"): seconds = min(value, 600)
            case (.tail, "--stall-percent"): stallPercent = min(value, 100)
            case (.tail, "--stall-ms"): stallMilliseconds = min(value, 60_000)
            case (.tail, "--hedge-ms"): hedgeMilliseconds = min(value, 60_000)
            case (.tail, "--seed"): seed = UInt64(value)
            default: throw Usage()
            }
        }
    }

    struct Usage: Error, CustomStringConvertible {
        var description: String {
            """
            usage: overload-scenario storm [--allowed N] [--seconds N (≤ 600)] [--workers N (≤ 1,000)] [--bare]
                   overload-scenario outage [--rate N (≤ 1,000)] [--outage S] [--before S] [--after S] (each ≤ 600)
                   overload-scenario tail [--rate N (≤ 1,000)] [--seconds S (≤ 600)] [--stall-percent P]
                                          [--stall-ms MS] [--hedge-ms MS] [--seed N]
            """
        }
    }
}

enum Code: Int, ErrorCode {
    static let domain = "APIError"
    static let shortName = "AP"
    case listFailed = 1
}

struct Row {
    var client: String
    var calls = 0
    var succeeded = 0
    var failures: [String: Int] = [:]
    var accepted = 0
    var refused = 0
    var elapsed = 0.0
}

func storm(limited: Bool, _ options: Options) async throws -> Row {
    let route = LoopbackRoute("GET", "/tasks") { _ in .json(#"[{"id":1}]"#) }
    let server = try await LoopbackServer.start(routes: [route])
    let counts = RateLimitCounts()
    server.faults.inject(
        LoopbackFaultRule(
            fault: .rateLimited(perSecond: options.allowed, rateLimitFields: !options.bare, counts: counts)))
    let transport = CurlTransport()
    defer { transport.shutdown() }
    let handlers: [any RecoverableErrorHandler] =
        (limited ? [AdaptiveRateLimitHandler()] : []) + [BackendTemporaryErrorHandler()]
    let api = try APIDataManager(baseURL: server.baseURL, transport: transport, handlers: handlers)
    let endpoint = Endpoint<TransportResponse, Code>(raw: .get, "/tasks", errorCode: .listFailed)
    let clock = ContinuousClock()
    let start = clock.now
    let end = start + .seconds(options.seconds)
    let rows = await withTaskGroup(of: Row.self) { group in
        for _ in 0..<options.workers {
            group.addTask {
                var row = Row(client: "")
                while clock.now < end {
                    row.calls += 1
                    do {
                        _ = try await api.send(endpoint)
                        row.succeeded += 1
                    } catch {
                        row.failures[error.chain.short, default: 0] += 1
                    }
                }
                return row
            }
        }
        var rows: [Row] = []
        for await row in group { rows.append(row) }
        return rows
    }
    var total = Row(client: limited ? "adaptive limiter + retries" : "retries alone")
    total.elapsed =
        Double(start.duration(to: clock.now).components.seconds)
        + Double(start.duration(to: clock.now).components.attoseconds) / 1e18
    for row in rows {
        total.calls += row.calls
        total.succeeded += row.succeeded
        total.failures.merge(row.failures, uniquingKeysWith: +)
    }
    total.accepted = counts.accepted
    total.refused = counts.refused
    try await server.shutdown()
    return total
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(64)
}

switch options.scenario {
case .storm:
    print(
        "429 storm: the backend accepts \(options.allowed) requests/s"
            + (options.bare ? " and its 429s say nothing more" : ", with the RateLimit fields")
            + "; \(options.workers) calls in flight for \(options.seconds) s\n")
    print("| client | calls | succeeded | failed (top chains) | 429s | goodput (accepted/s) | of allowed |")
    print("|---|---|---|---|---|---|---|")
    for limited in [false, true] {
        let row = try await storm(limited: limited, options)
        let failed = row.failures.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key) \($0.value)" }
        let goodput = Double(row.accepted) / row.elapsed
        print(
            "| \(row.client) | \(row.calls) | \(row.succeeded) | \(row.calls - row.succeeded)"
                + (failed.isEmpty ? "" : " (\(failed.joined(separator: ", ")))") + " | \(row.refused) | "
                + String(format: "%.1f | %.0f %% |", goodput, 100 * goodput / Double(options.allowed)))
    }
case .outage:
    try await OutageScenario(options).run()
case .tail:
    try await SlowTailScenario(options).run()
}
