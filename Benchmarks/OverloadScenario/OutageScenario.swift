import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import Synchronization

/// `overload-scenario outage`: calls at a fixed rate against a backend that answers 503 to
/// everything for a while, with and without a circuit breaker.
struct OutageScenario {
    /// What one client did.
    struct Row {
        var client: String
        var calls = 0
        var succeeded = 0
        var failures: [String: Int] = [:]
        /// Calls started while the backend was down.
        var callsDuringOutage = 0
        /// Requests the backend answered 503 (all of those it received while down).
        var attemptsDuringOutage = 0
        /// From the backend's recovery to the end of the first call that succeeded after it.
        var firstSuccessAfterRecovery: Duration?
        /// The breaker's transitions, in seconds from the scenario's start.
        var transitions: [(at: Double, from: String, to: String)] = []
        /// The break of the circuit's last opening before the recovery, jitter included.
        var breakAtRecovery: Duration?
    }

    /// One call's end, as the workers record it.
    private struct Call {
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
        var failure: String?
    }

    /// What the workers and the breaker record, from many tasks.
    private final class Log: Sendable {
        let calls = Mutex<[Call]>([])
        let transitions = Mutex<[CircuitBreakerHandler.Transition]>([])
    }

    let options: Options

    init(_ options: Options) {
        self.options = options
    }

    func run() async throws {
        print(
            "Outage: calls start at \(options.rate)/s for \(options.before + options.outage + options.after) s; "
                + "the backend answers 503 to everything from \(options.before) s to "
                + "\(options.before + options.outage) s\n")
        print(
            "| client | calls | succeeded | failed (top chains) | attempts/s reaching the backend during the outage "
                + "| attempts ÷ calls during the outage | recovery to first success | break in force at recovery |")
        print("|---|---|---|---|---|---|---|---|")
        var rows: [Row] = []
        for breaker in [false, true] {
            let row = try await measure(breaker: breaker)
            rows.append(row)
            let failed = row.failures.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key) \($0.value)" }
            let perSecond = Double(row.attemptsDuringOutage) / Double(options.outage)
            let perCall = Double(row.attemptsDuringOutage) / Double(max(1, row.callsDuringOutage))
            let cells = [
                row.client, "\(row.calls)", "\(row.succeeded)",
                "\(row.calls - row.succeeded)" + (failed.isEmpty ? "" : " (\(failed.joined(separator: ", ")))"),
                String(format: "%.1f", perSecond), String(format: "%.3f", perCall),
                row.firstSuccessAfterRecovery.map(Self.seconds) ?? "none", row.breakAtRecovery.map(Self.seconds) ?? "-",
            ]
            print("| " + cells.joined(separator: " | ") + " |")
        }
        let (without, with) = (rows[0], rows[1])
        let fewer = 1 - Double(with.attemptsDuringOutage) / Double(max(1, without.attemptsDuringOutage))
        print(
            String(
                format: "\nWith the breaker, %.1f %% fewer attempts reached the backend during the outage.", 100 * fewer
            ))
        print(
            "Breaker transitions (s from the start): "
                + with.transitions.map { String(format: "%.2f ", $0.at) + "\($0.from)→\($0.to)" }.joined(
                    separator: ", "))
    }

    private func measure(breaker: Bool) async throws -> Row {
        let route = LoopbackRoute("GET", "/tasks") { _ in .json(#"[{"id":1}]"#) }
        let server = try await LoopbackServer.start(routes: [route])
        let counts = OutageCounts()
        let log = Log()
        var handlers: [any RecoverableErrorHandler] = [BackendTemporaryErrorHandler()]
        if breaker {
            handlers.insert(
                CircuitBreakerHandler(onTransition: { transition in log.transitions.withLock { $0.append(transition) } }
                ),
                at: 0)
        }
        // A connection for every call that may be in flight, as `rebound load` sets it.
        let transport = CurlTransport(
            configuration: .init(maxCachedConnections: 1_000, maxConnectionsPerHost: 1_000))
        defer { transport.shutdown() }
        let api = try APIDataManager(baseURL: server.baseURL, transport: transport, handlers: handlers)
        let endpoint = Endpoint<TransportResponse, Code>(raw: .get, "/tasks", errorCode: .listFailed)

        let clock = ContinuousClock()
        let pipelineStart = TimeSource.system.now()
        let start = clock.now
        server.faults.inject(
            LoopbackFaultRule(
                fault: .outage(after: .seconds(options.before), lasting: .seconds(options.outage), counts: counts)))
        let outageBegins = start + .seconds(options.before)
        let outageEnds = outageBegins + .seconds(options.outage)
        let total = options.rate * (options.before + options.outage + options.after)
        await withDiscardingTaskGroup { group in
            for index in 0..<total {
                let due = start + .seconds(Double(index) / Double(options.rate))
                try? await clock.sleep(until: due)
                group.addTask {
                    var failure: String?
                    do {
                        _ = try await api.send(endpoint)
                    } catch {
                        failure = error.chain.short
                    }
                    let call = Call(started: due, ended: clock.now, failure: failure)
                    log.calls.withLock { $0.append(call) }
                }
            }
        }
        try await server.shutdown()

        var row = Row(client: breaker ? "circuit breaker + retries" : "retries alone")
        for call in log.calls.withLock({ $0 }) {
            row.calls += 1
            if let failure = call.failure {
                row.failures[failure, default: 0] += 1
            } else {
                row.succeeded += 1
                if call.ended >= outageEnds {
                    let after = outageEnds.duration(to: call.ended)
                    row.firstSuccessAfterRecovery = min(row.firstSuccessAfterRecovery ?? after, after)
                }
            }
            if call.started >= outageBegins && call.started < outageEnds { row.callsDuringOutage += 1 }
        }
        row.attemptsDuringOutage = counts.outageAnswers
        let recoveredAt = pipelineStart + .seconds(options.before + options.outage)
        for transition in log.transitions.withLock({ $0 }) {
            let at = (transition.at ?? pipelineStart) - pipelineStart
            row.transitions.append((Self.secondsValue(at), "\(transition.from)", "\(transition.to)"))
            if transition.to == .open, let opened = transition.at, opened <= recoveredAt {
                row.breakAtRecovery = transition.breakDuration
            }
        }
        return row
    }

    private static func secondsValue(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f s", secondsValue(duration))
    }
}
