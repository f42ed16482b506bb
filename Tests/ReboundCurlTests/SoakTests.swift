import Foundation
import HTTPTypes
import Rebound
import ReboundCurl
import ReboundMockBackend
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A long run through `APIDataManager` against the loopback server, with every fault of the
/// matrix in the mix: memory stays flat, descriptors come back, nothing is left running, and every
/// call ends the way its fault says (docs/reliability.md, "The soak test").
///
/// Only with `REBOUND_SOAK` set, as `make soak` does: 200,000 calls take minutes. `SOAK_CALLS`
/// sets another number.
@Suite(.serialized) struct SoakTests {
    static let environment = ProcessInfo.processInfo.environment
    static let isEnabled = !(environment["REBOUND_SOAK"] ?? "").isEmpty
    static let calls = max(1_000, Int(environment["SOAK_CALLS"] ?? "") ?? 200_000)
    static let inFlight = 32
    /// One call in this many is faulty: 5%.
    static let faultEvery = 20
    /// Measured in tenths of the run; the first tenth is the warm-up of the memory measurement.
    static let slices = 10

    /// The matrix's faults, the ones that wait on a timer shortened so that they do not dominate
    /// the run, each still ending in its matrix chain.
    static let faults: [FaultMatrixTests.Case] = FaultMatrixTests.cases.map { fault in
        var fault = fault
        switch fault.name {
        case "slow drip (1 body byte per 100 ms)":
            fault.limits = RequestLimits(maxAttempts: 1, deadline: .seconds(2), attemptTimeout: .seconds(1))
            fault.options = TransportOptions(stallTimeout: .milliseconds(700), maxResponseBodySize: 100_000)
        case "stall":
            fault.options.stallTimeout = .milliseconds(250)
        case "stall past the deadline":
            fault.limits.deadline = .milliseconds(300)
        default: break
        }
        return fault
    }

    @Test(.enabled(if: isEnabled))
    func everyCallEndsAsItsFaultSaysAndNothingGrowsOrStaysBehind() async throws {
        // A short soak of its own first starts what the process keeps for good (event loops,
        // timers, the resolver's and TLS library's state), as the fault matrix's warm-up does.
        _ = try await Self.soak(calls: 5_000)
        let matrix = FaultMatrixTests()
        let descriptorsBefore = try matrix.openDescriptors()
        let targetsBefore = try matrix.descriptorTargets()
        let run = try await Self.soak(calls: Self.calls)
        let descriptorsAfter = try await matrix.descriptorsSettled(at: descriptorsBefore)
        let opened = try matrix.descriptorTargets().subtracting(targetsBefore).sorted()
        let hooksRunning = await waitUntil { TimeLimit.operationsRunning == 0 } ? 0 : TimeLimit.operationsRunning

        let growth = run.residentBytes.last! - run.residentBytes.first!
        print(
            """

            soak: \(Self.calls) calls, \(Self.inFlight) in flight, 1 in \(Self.faultEvery) faulty \
            (\(Self.faults.count) kinds), \(String(format: "%.1f", run.seconds)) s, \
            \(Int(Double(Self.calls) / run.seconds)) calls/s
            resident memory after each tenth (MiB): \(run.residentBytes.map { Self.mebibytes($0) }.joined(separator: " "))
            growth after the warm-up tenth: \(Self.mebibytes(growth)) MiB (limit 5)
            open descriptors: \(descriptorsBefore) before, \(descriptorsAfter) after shutdown()
            transfers active when every call had ended: \(run.activeTransfers); hooks still running: \(hooksRunning)
            calls: \(run.succeeded) succeeded, \(run.failedAsExpected) failed in their matrix chain, \
            \(run.budgetExhausted) in it with RE4 (the shared retry budget ran dry), \
            \(run.unexpected.values.reduce(0, +)) otherwise
            """)
        for (outcome, count) in run.unexpected.sorted(by: { $0.value > $1.value }).prefix(20) {
            print("unexpected: \(outcome) × \(count), the first: \(run.unexpectedHistory[outcome] ?? "")")
        }
        #expect(run.unexpected.isEmpty, "calls that ended otherwise than their fault says: \(run.unexpected)")
        #expect(growth < 5 * 1024 * 1024, "resident memory grew \(Self.mebibytes(growth)) MiB after the warm-up")
        #expect(descriptorsAfter == descriptorsBefore, "opened since: \(opened)")
        #expect(run.activeTransfers == 0)
        #expect(hooksRunning == 0)
        #expect(!run.handlersMisfired, "the auth or captcha handler acted")
    }

    /// What one soak measured.
    struct Run {
        var seconds: Double
        /// Resident memory after each slice.
        var residentBytes: [Int] = []
        var succeeded = 0
        var failedAsExpected = 0
        /// Calls of a retried fault that the retry budget ended: `AP8-RE4-` and the fault's last link.
        var budgetExhausted = 0
        /// "fault: chain" of the calls that ended otherwise than expected, and how many.
        var unexpected: [String: Int] = [:]
        /// The attempt history of the first call of each unexpected "fault: chain".
        var unexpectedHistory: [String: String] = [:]
        /// The transport's transfers not handed back once every call had ended.
        var activeTransfers: Int
        var handlersMisfired: Bool
    }

    /// One way a call goes: a data manager and an endpoint, and the chain it must end in.
    struct Lane: Sendable {
        var name: String
        var api: APIDataManager
        var endpoint: Endpoint<[FaultMatrixTests.Item], FaultMatrixTests.SampleCode>
        /// `success`, or the fault's short chain.
        var expected: String
    }

    /// Sends `calls` calls over a transport and servers of its own, then shuts them down.
    static func soak(calls: Int) async throws -> Run {
        // A client that gives up on a stalled reply closes its side; the server keeps such a
        // connection until its idle timeout, 60 s by default: at thousands of calls a second the
        // stalls alone would fill its 1024 connections, and it would reset the healthy calls' new
        // ones. Five seconds keeps them to about a hundred.
        let server = try await LoopbackServer.start(
            limits: LoopbackServer.Limits(idleTimeout: .seconds(5)),
            routes: [
                FaultMatrixTests.tasks,
                LoopbackRoute("GET", pathPrefix: "/faults", handler: FaultMatrixTests.tasks.handler),
            ])
        let refused = try boundLoopbackSocket()
        let tls = TLSServerFixture.isAvailable ? try await TLSServerFixture.start() : nil
        defer {
            tls?.stop()
            close(refused)
        }
        let transport = CurlTransport()
        let misfired = Locked(false)
        // One budget for every lane, as an app gives one to all its handlers: the healthy calls
        // earn what the faulty ones spend.
        let budget = RetryBudget()
        var faulty: [Lane] = []
        for (index, fault) in faults.enumerated() {
            let baseURL: String
            switch fault.server {
            case .loopback(let injected):
                server.faults.inject(LoopbackFaultRule("GET", "/faults/\(index)", fault: injected))
                baseURL = server.baseURL
            case .refusingConnections:
                baseURL = "http://127.0.0.1:\(try boundPort(of: refused))"
            case .unresolvableName:
                baseURL = "http://rebound-soak.invalid"
            case .untrustedCertificate:
                guard let tls else { continue }
                baseURL = "https://127.0.0.1:\(tls.tlsPort)"
            }
            let api = try FaultMatrixTests.dataManager(
                baseURL: baseURL, transport: transport, limits: fault.limits, options: fault.options,
                budget: budget, misfired: misfired)
            let endpoint = Endpoint<[FaultMatrixTests.Item], FaultMatrixTests.SampleCode>(
                .get, "/faults/\(index)", errorCode: .listTasksFailed)
            faulty.append(Lane(name: fault.name, api: api, endpoint: endpoint, expected: fault.chain))
        }
        let healthy = Lane(
            name: "no fault",
            api: try FaultMatrixTests.dataManager(
                baseURL: server.baseURL, transport: transport, limits: FaultMatrixTests.limits,
                options: FaultMatrixTests.options, budget: budget, misfired: misfired),
            endpoint: FaultMatrixTests.list, expected: "success")
        // Every 20th call is faulty, the faults taking turns: each kind gets its share.
        let lanes = faulty
        let lane: @Sendable (Int) -> Lane = { call in
            call % faultEvery == faultEvery - 1 ? lanes[(call / faultEvery) % lanes.count] : healthy
        }

        let tally = Locked(Run(seconds: 0, activeTransfers: 0, handlersMisfired: false))
        let start = ContinuousClock.now
        let sliceSize = (calls + slices - 1) / slices
        for sliceStart in stride(from: 0, to: calls, by: sliceSize) {
            let next = Locked(sliceStart)
            let end = min(calls, sliceStart + sliceSize)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<inFlight {
                    group.addTask {
                        while true {
                            let call = next.withLock { next -> Int? in
                                guard next < end else { return nil }
                                defer { next += 1 }
                                return next
                            }
                            guard let call else { return }
                            await send(lane(call), into: tally)
                        }
                    }
                }
            }
            let resident = residentBytes()
            tally.withLock { $0.residentBytes.append(resident) }
        }
        let elapsed = ContinuousClock.now - start
        var run = tally.withLock { $0 }
        run.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        run.activeTransfers = transport.activeTransfers
        run.handlersMisfired = misfired.withLock { $0 }
        transport.shutdown()
        try await server.shutdown()
        return run
    }

    /// Sends one call and counts how it ended.
    static func send(_ lane: Lane, into tally: Locked<Run>) async {
        let outcome: String
        let history: String
        do {
            _ = try await lane.api.response(for: lane.endpoint)
            (outcome, history) = ("success", "")
        } catch {
            (outcome, history) = (error.chain.short, error.attachment(AttemptHistory.self)?.summary ?? "none")
        }
        // A fault the handler retries may meet an empty budget: the call then ends at once in
        // RE4 over the same failure, as the budget promises.
        let links = lane.expected.split(separator: "-")
        let budgetChain = links.contains { $0.hasPrefix("RE") } ? "AP8-RE4-\(links.last!)" : nil
        tally.withLock { run in
            switch outcome {
            case lane.expected where outcome == "success": run.succeeded += 1
            case lane.expected: run.failedAsExpected += 1
            case budgetChain: run.budgetExhausted += 1
            default:
                run.unexpected["\(lane.name): \(outcome)", default: 0] += 1
                if run.unexpectedHistory["\(lane.name): \(outcome)"] == nil {
                    run.unexpectedHistory["\(lane.name): \(outcome)"] = history
                }
            }
        }
    }

    /// The process's resident memory, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }
}
