import Foundation
import HTTPTypes
import ReboundTesting
import Testing

@testable import Rebound

/// The bulkhead in the pipeline, over a transport whose answers wait for the test.
@Suite struct ConcurrencyLimitHandlerTests {
    /// A transport that holds each request until the test releases it, recording the order they
    /// arrived in.
    final class HeldTransport: HTTPTransport {
        private let state = Locked<(arrived: [String], gates: [String: Gate])>(([], [:]))

        var arrived: [String] { state.withLock { $0.arrived } }

        func release(_ path: String) {
            gate(path).open()
        }

        private func gate(_ path: String) -> Gate {
            state.withLock { state in
                if let gate = state.gates[path] { return gate }
                let gate = Gate()
                state.gates[path] = gate
                return gate
            }
        }

        func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws(NetworkError)
            -> TransportResponse
        {
            let path = request.path ?? ""
            state.withLock { $0.arrived.append(path) }
            await gate(path).wait()
            return CircuitBreakerHandlerTests.tasksResponse
        }
    }

    static func endpoint(_ name: String) -> Endpoint<[TaskItem], APIErrorCode> {
        Endpoint(.get, "/\(name)", errorCode: .listTasksFailed)
    }

    static func manager(
        _ transport: some HTTPTransport, _ handlers: [any RecoverableErrorHandler],
        baseURL: String = "https://api.example.com/v1", clock: TestClock = TestClock(mode: .manual),
        limits: RequestLimits = RequestLimits()
    ) throws -> APIDataManager {
        try APIDataManager(
            baseURL: baseURL, transport: transport, handlers: handlers, limits: limits, time: clock.timeSource)
    }

    /// A bulkhead alone in a pipeline over a held transport.
    static func held(maxInFlight: Int, maxQueued: Int) throws -> (
        ConcurrencyLimitHandler, HeldTransport, APIDataManager
    ) {
        let bulkhead = ConcurrencyLimitHandler(configuration: .init(maxInFlight: maxInFlight, maxQueued: maxQueued))
        let transport = HeldTransport()
        return (bulkhead, transport, try manager(transport, [bulkhead]))
    }

    /// Starts a call and waits until it is in flight or queued.
    static func start(
        _ name: String, on api: APIDataManager, _ bulkhead: ConcurrencyLimitHandler
    ) async -> Task<String, Never> {
        let before = bulkhead.inFlight() + bulkhead.queued
        let call = Task {
            do {
                _ = try await api.send(endpoint(name))
                return "ok"
            } catch {
                return error.chain.short
            }
        }
        _ = await eventually { bulkhead.inFlight() + bulkhead.queued > before }
        return call
    }

    @Test func atMostTheLimitGoAndTheOthersWaitInTheOrderTheyCame() async throws {
        let (bulkhead, transport, api) = try Self.held(maxInFlight: 2, maxQueued: 2)
        var calls: [Task<String, Never>] = []
        for name in ["a", "b", "c", "d"] { calls.append(await Self.start(name, on: api, bulkhead)) }
        #expect(bulkhead.inFlight() == 2 && bulkhead.queued == 2)
        #expect(transport.arrived == ["/v1/a", "/v1/b"])
        transport.release("/v1/b")
        #expect(await calls[1].value == "ok")
        #expect(await eventually { transport.arrived.count == 3 })
        #expect(transport.arrived.last == "/v1/c")
        for path in ["/v1/a", "/v1/c", "/v1/d"] { transport.release(path) }
        for call in calls { #expect(await call.value == "ok") }
        #expect(transport.arrived == ["/v1/a", "/v1/b", "/v1/c", "/v1/d"])
        #expect(bulkhead.inFlight() == 0 && bulkhead.queued == 0)
    }

    @Test func anAttemptThatFindsTheQueueFullIsRefusedAtOnceWithoutBeingSent() async throws {
        let (bulkhead, transport, api) = try Self.held(maxInFlight: 1, maxQueued: 1)
        let first = await Self.start("a", on: api, bulkhead)
        let second = await Self.start("b", on: api, bulkhead)
        let error = await #expect(throws: APIError.self) { try await api.send(Self.endpoint("c")) }
        #expect(error?.chain.short == "AP8-RE52")
        let reason = (error?.cause as? RecoveryError)?.reason
        #expect(reason == "1 attempts are in flight and 1 waiting, the most allowed; the attempt was not sent.")
        #expect(ErrorPresenter.standard.present(try #require(error)).messageKey == "rateLimited")
        #expect(transport.arrived == ["/v1/a"])
        transport.release("/v1/a")
        transport.release("/v1/b")
        #expect(await first.value == "ok")
        #expect(await second.value == "ok")
    }

    @Test func aWaiterWhoseTaskIsCancelledLeavesTheQueueAtOnce() async throws {
        let (bulkhead, transport, api) = try Self.held(maxInFlight: 1, maxQueued: 4)
        let first = await Self.start("a", on: api, bulkhead)
        let waiting = await Self.start("b", on: api, bulkhead)
        #expect(bulkhead.queued == 1)
        waiting.cancel()
        #expect(await waiting.value == "AP8-RE40-CA1")
        #expect(bulkhead.queued == 0 && bulkhead.inFlight() == 1)
        transport.release("/v1/a")
        #expect(await first.value == "ok")
        #expect(transport.arrived == ["/v1/a"])
        #expect(bulkhead.inFlight() == 0)
    }

    @Test func aWaiterStillQueuedAtItsDeadlineIsLeftBehindAndLeavesTheQueue() async throws {
        let clock = TestClock(mode: .manual)
        let bulkhead = ConcurrencyLimitHandler(configuration: .init(maxInFlight: 1, maxQueued: 4))
        let transport = HeldTransport()
        let api = try Self.manager(
            transport, [bulkhead], clock: clock, limits: RequestLimits(deadline: .seconds(5)))
        let first = await Self.start("a", on: api, bulkhead)
        let waiting = await Self.start("b", on: api, bulkhead)
        // The waiting hook is raced against the deadline: its timer is the one sleeper.
        try await clock.advance(by: .seconds(5), whenSleepersReach: 1)
        #expect(await waiting.value == "AP8-RE2")
        #expect(bulkhead.queued == 0)
        transport.release("/v1/a")
        #expect(await first.value == "ok")
        #expect(transport.arrived == ["/v1/a"])
    }

    @Test func aPermitFreedAfterAWaitersDeadlineRefusesItAndGoesToTheNext() async throws {
        let clock = TestClock(mode: .manual)
        let bulkhead = ConcurrencyLimitHandler(configuration: .init(maxInFlight: 1, maxQueued: 4))
        func context(_ call: UInt64, deadline: Duration) -> AttemptContext {
            AttemptContext(
                id: AttemptID(call: call, attempt: 1), maxAttempts: 1, deadline: deadline, method: .get,
                path: "/tasks", time: clock.timeSource)
        }
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/tasks")
        try await bulkhead.prepare(&request, context: context(1, deadline: .seconds(60)))
        let late = Task {
            var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/tasks")
            try await bulkhead.prepare(&request, context: context(2, deadline: .seconds(1)))
        }
        let onTime = Task {
            var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/tasks")
            _ = await eventually { bulkhead.queued == 1 }
            try await bulkhead.prepare(&request, context: context(3, deadline: .seconds(60)))
        }
        #expect(await eventually { bulkhead.queued == 2 })
        clock.advance(by: .seconds(2))
        bulkhead.attemptDidEndSynchronously(.cancelled, context: context(1, deadline: .seconds(60)))
        let error = await #expect(throws: RecoveryError.self) { try await late.value }
        #expect(error?.code == .concurrencyLimitReached)
        try await onTime.value
        #expect(bulkhead.inFlight() == 1 && bulkhead.queued == 0)
        bulkhead.attemptDidEndSynchronously(.abandoned, context: context(3, deadline: .seconds(60)))
        #expect(bulkhead.inFlight() == 0)
    }

    @Test func aFreePermitIsTakenInlineAndAFullBulkheadHandsOverToItsQueue() throws {
        let clock = TestClock(mode: .manual)
        func context(_ call: UInt64) -> AttemptContext {
            AttemptContext(
                id: AttemptID(call: call, attempt: 1), maxAttempts: 1, deadline: .seconds(60), method: .get,
                path: "/tasks", time: clock.timeSource)
        }
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/tasks")
        let queueing = ConcurrencyLimitHandler(configuration: .init(maxInFlight: 1, maxQueued: 1))
        #expect(try queueing.prepareSynchronously(&request, context: context(1)) == .done)
        #expect(queueing.inFlight() == 1)
        // Only the asynchronous prepare joins the queue: the inline one takes nothing it must give back.
        #expect(try queueing.prepareSynchronously(&request, context: context(2)) == .continueAsynchronously)
        #expect(queueing.inFlight() == 1 && queueing.queued == 0)
        queueing.attemptDidEndSynchronously(.cancelled, context: context(1))
        #expect(queueing.inFlight() == 0)

        let full = ConcurrencyLimitHandler(configuration: .init(maxInFlight: 1, maxQueued: 0))
        #expect(try full.prepareSynchronously(&request, context: context(3)) == .done)
        let error = #expect(throws: RecoveryError.self) { try full.prepareSynchronously(&request, context: context(4)) }
        #expect(error?.code == .concurrencyLimitReached)
    }

    @Test func perHostEachHostHasItsOwnLimit() async throws {
        let bulkhead = ConcurrencyLimitHandler(configuration: .init(maxInFlight: 1, maxQueued: 0, scope: .perHost))
        let transport = HeldTransport()
        let first = try Self.manager(transport, [bulkhead])
        let second = try Self.manager(transport, [bulkhead], baseURL: "https://other.example.com:8443/v1")
        let a = await Self.start("a", on: first, bulkhead)
        let b = await Self.start("b", on: second, bulkhead)
        #expect(bulkhead.inFlight(host: "api.example.com") == 1)
        #expect(bulkhead.inFlight(host: "other.example.com:8443") == 1)
        let error = await #expect(throws: APIError.self) { try await first.send(Self.endpoint("c")) }
        #expect(error?.chain.short == "AP8-RE52")
        transport.release("/v1/a")
        transport.release("/v1/b")
        #expect(await a.value == "ok")
        #expect(await b.value == "ok")
        #expect(bulkhead.inFlight() == 0)
    }

    @Test func permitsComeBackWhateverWayTheAttemptsEnd() async throws {
        let bulkhead = ConcurrencyLimitHandler(configuration: .init(maxInFlight: 1, maxQueued: 0))
        let refuseNext = Locked(false)
        let transport = ScriptedTransport([
            .status(.serviceUnavailable), .tasks, .status(.notFound), .fail(NetworkError(.connectionReset)), .tasks,
        ])
        let api = try makeManager(
            transport, handlers: [bulkhead, RefuseOnce(refuseNext: refuseNext), temporaryHandler()])
        _ = try await api.send(SampleEndpoints.listTasks)
        _ = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        refuseNext.withLock { $0 = true }
        _ = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(transport.requests.count == 5)
        #expect(bulkhead.inFlight() == 0 && bulkhead.queued == 0)
    }

    @Test func anEndpointThatSkipsTheBulkheadIsNeitherQueuedNorCounted() async throws {
        let (bulkhead, transport, api) = try Self.held(maxInFlight: 1, maxQueued: 0)
        let held = await Self.start("a", on: api, bulkhead)
        let refresh = Task {
            try await api.send(Self.endpoint("token").skipping(.type(ConcurrencyLimitHandler.self)))
        }
        #expect(await eventually { transport.arrived.count == 2 })
        transport.release("/v1/token")
        _ = try await refresh.value
        #expect(bulkhead.inFlight() == 1)
        transport.release("/v1/a")
        #expect(await held.value == "ok")
    }

    @Test func outOfRangeSettingsAreRaisedToTheirMinimum() {
        let configuration = ConcurrencyLimitHandler.Configuration(maxInFlight: 0, maxQueued: -3)
        #expect(configuration.maxInFlight == 1 && configuration.maxQueued == 0)
    }
}
