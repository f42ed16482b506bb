import Synchronization

/// Runs a workload against a client: a warm-up, then a measured phase, then the report.
///
/// With a concurrency of one, requests run back to back in one task, as a sequential program would
/// issue them. With more, a task group runs that many workers, each taking the next request from a
/// shared counter as soon as its previous one finishes, so exactly `concurrency` requests are in
/// flight until the last few. Workers rather than one child task per request: creating a task per
/// request would charge the harness's own allocations to the client.
///
/// Each request's latency runs from just before the client is called to just after it returns the
/// whole body, read from `ContinuousClock`.
struct BenchmarkRunner: Sendable {
    let client: any BenchmarkClient
    let options: BenchmarkOptions
    /// The process's usage when `main` began, before the client was created.
    let startUsage: ResourceUsage

    /// Runs the warm-up and the measured phase, and reads the process's resource usage at the end.
    func run() async -> BenchmarkReport {
        let warmup = await runPhase(requests: options.warmup)

        let usageBefore = ResourceUsage.current()
        let clock = ContinuousClock()
        let start = clock.now
        let measured = await runPhase(requests: options.requests)
        let seconds = start.duration(to: clock.now).secondsAsDouble
        let usageAfter = ResourceUsage.current()

        return BenchmarkReport(
            client: options.client,
            workload: options.workload,
            requests: options.requests,
            seconds: seconds,
            sortedLatencies: measured.latencies.sorted(),
            bodyBytes: measured.bodyBytes,
            peakResidentKiB: usageAfter.peakResidentKiB,
            startResidentKiB: startUsage.peakResidentKiB,
            cpuSeconds: usageAfter.cpuSeconds - usageBefore.cpuSeconds,
            failures: warmup.failures + measured.failures
        )
    }

    private func runPhase(requests: Int) async -> PhaseTally {
        guard requests > 0 else { return PhaseTally(capacity: 0) }
        guard options.concurrency > 1 else {
            var tally = PhaseTally(capacity: requests)
            for _ in 0..<requests {
                await fetchOnce(into: &tally)
            }
            return tally
        }

        let tickets = RequestTickets(total: requests)
        let workers = min(options.concurrency, requests)
        return await withTaskGroup(of: PhaseTally.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var tally = PhaseTally(capacity: requests / workers + 1)
                    while tickets.take() {
                        await fetchOnce(into: &tally)
                    }
                    return tally
                }
            }
            var total = PhaseTally(capacity: requests)
            for await tally in group {
                total.merge(tally)
            }
            return total
        }
    }

    private func fetchOnce(into tally: inout PhaseTally) async {
        let clock = ContinuousClock()
        let start = clock.now
        let outcome: Result<FetchResult, any Error>
        do {
            outcome = .success(try await client.fetch())
        } catch {
            outcome = .failure(error)
        }
        let latency = start.duration(to: clock.now)
        tally.record(latency: latency, outcome: outcome, expectedBodyBytes: options.expectedBodyBytes)
    }
}

/// What the requests of one phase, or of one worker within it, came to.
private struct PhaseTally: Sendable {
    /// Latencies in nanoseconds, in completion order.
    var latencies: [Int]
    var bodyBytes = 0
    var failures = 0

    /// How many failures are described on standard error; the rest are only counted.
    private static let describedFailures = 5

    init(capacity: Int) {
        latencies = []
        latencies.reserveCapacity(capacity)
    }

    mutating func record(latency: Duration, outcome: Result<FetchResult, any Error>, expectedBodyBytes: Int) {
        latencies.append(latency.nanoseconds)
        let problem: String?
        switch outcome {
        case .success(let result):
            bodyBytes += result.bodyBytes
            if result.status != 200 {
                problem = "status \(result.status)"
            } else if result.bodyBytes != expectedBodyBytes {
                problem = "body of \(result.bodyBytes) bytes, expected \(expectedBodyBytes)"
            } else {
                problem = nil
            }
        case .failure(let error):
            problem = "\(error)"
        }
        if let problem {
            failures += 1
            if failures <= Self.describedFailures {
                printToStandardError("request failed: \(problem)")
            }
        }
    }

    mutating func merge(_ other: PhaseTally) {
        latencies.append(contentsOf: other.latencies)
        bodyBytes += other.bodyBytes
        failures += other.failures
    }
}

/// A countdown of the requests a phase still has to start, shared by its workers.
private final class RequestTickets: Sendable {
    private let remaining: Atomic<Int>

    init(total: Int) {
        remaining = Atomic(total)
    }

    /// Claims one request; false once all have been claimed.
    func take() -> Bool {
        remaining.subtract(1, ordering: .relaxed).oldValue > 0
    }
}

extension Duration {
    fileprivate var nanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    fileprivate var secondsAsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
