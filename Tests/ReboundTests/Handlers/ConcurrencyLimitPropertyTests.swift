import Foundation
import HTTPTypes
import PropertyBased
import Rebound
import ReboundTesting
import Synchronization
import Testing

/// Property tests of the bulkhead's law: however many calls race through the pipeline at once,
/// never more than its limit are in flight, every permit comes back, and only calls that found
/// the limit and the queue full are refused.
@Suite struct ConcurrencyLimitPropertyTests {
    /// A transport that counts the requests in flight and remembers the most at once; each
    /// request yields a few times before it answers, so that calls overlap.
    final class CountingTransport: HTTPTransport {
        let current = Atomic(0)
        let most = Atomic(0)
        let sent = Atomic(0)
        let yields: [Int]

        init(yields: [Int]) {
            self.yields = yields
        }

        func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws(NetworkError)
            -> TransportResponse
        {
            let number = sent.add(1, ordering: .relaxed).newValue
            let now = current.add(1, ordering: .relaxed).newValue
            most.max(now, ordering: .relaxed)
            for _ in 0..<yields[number % yields.count] { await Task.yield() }
            current.subtract(1, ordering: .relaxed)
            return CircuitBreakerHandlerTests.tasksResponse
        }
    }

    @Test func neverMoreThanTheLimitAreInFlight() async throws {
        await propertyCheck(
            count: 60, input: Gen.int(in: 1...4), Gen.int(in: 0...6), Gen.int(in: 1...24),
            Gen.int(in: 0...5).array(of: 1...8)
        ) { limit, queue, calls, yields in
            let bulkhead = ConcurrencyLimitHandler(configuration: .init(maxInFlight: limit, maxQueued: queue))
            let transport = CountingTransport(yields: yields)
            // A manual clock that never moves: no deadline passes while calls wait.
            let api = try APIDataManager(
                baseURL: "https://api.example.com", transport: transport, handlers: [bulkhead],
                time: TestClock(mode: .manual).timeSource)
            let results = await withTaskGroup(of: String.self) { group in
                for _ in 0..<calls {
                    group.addTask {
                        do {
                            _ = try await api.send(SampleEndpoints.listTasks)
                            return "ok"
                        } catch {
                            return error.chain.short
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(transport.most.load(ordering: .relaxed) <= limit)
            #expect(Set(results).isSubset(of: ["ok", "AP8-RE52"]))
            let refused = results.count { $0 != "ok" }
            // A refusal finds `limit` calls in flight and `queue` waiting, all of which succeed.
            #expect(refused <= max(0, calls - limit - queue))
            #expect(transport.sent.load(ordering: .relaxed) == calls - refused)
            #expect(bulkhead.inFlight() == 0 && bulkhead.queued == 0)
        }
    }
}
