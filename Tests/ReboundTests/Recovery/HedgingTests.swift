import Foundation
import HTTPTypes
import PropertyBased
import ReboundTesting
import TestSupport
import Testing

@testable import Rebound

/// Hedged calls through the pipeline, with the public API alone: a scripted transport whose
/// answers take time on a manual test clock.
@Suite struct HedgingTests {
    static let tasksJSON = Data(#"[{"id":1,"title":"Label the picture"}]"#.utf8)

    /// Answers the task list after `duration` on `clock`; records in `cancelled` when its task is
    /// cancelled first, as a transfer that libcurl removes.
    static func slow(_ clock: TestClock, _ duration: Duration, cancelled: Locked<Int>) -> ScriptedTransport.Step {
        .reply { _, _ throws(NetworkError) in
            do {
                try await clock.sleep(for: duration)
            } catch {
                cancelled.withLock { $0 += 1 }
                throw NetworkError(.cancelled, reason: "The request's task was cancelled.")
            }
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            return TransportResponse(head: HTTPResponse(status: .ok, headerFields: fields), body: tasksJSON)
        }
    }

    static func hedged(
        _ method: HTTPRequest.Method = .get, key: Bool = false, policy: HedgingPolicy
    ) -> Endpoint<[TaskItem], APIErrorCode> {
        var endpoint = Endpoint<[TaskItem], APIErrorCode>(
            method, "/tasks", body: method == .get ? nil : Data("{}".utf8), errorCode: .listTasksFailed)
        if key { endpoint.headerFields[BackendTemporaryErrorHandler.idempotencyKey] = "k-1" }
        endpoint.options.hedging = policy
        return endpoint
    }

    static let after100ms = HedgingPolicy(delay: .fixed(.milliseconds(100)))

    @Test func aStalledFirstAttemptIsHedgedTheHedgeWinsAndTheLoserIsCancelled() async throws {
        let clock = TestClock(mode: .manual)
        let cancelled = Locked(0)
        let transport = ScriptedTransport([Self.slow(clock, .seconds(1), cancelled: cancelled), .tasks])
        let recorder = HandlerHookTests.Recorder()
        let api = try makeManager(transport, handlers: [recorder], clock: clock)
        let call = Task { try await api.response(for: Self.hedged(policy: Self.after100ms)) }
        // The first transfer and the hedging timer sleep; 100 ms pass without an answer.
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
        let answer = try await call.value
        #expect(answer.value.map(\.id) == [1])
        #expect(transport.requests.count == 2)
        #expect(cancelled.withLock { $0 } == 1)
        // The loser was never answered: the history holds the winner alone.
        #expect(answer.history.attempts.map(\.number) == [2])
        // Each attempt has its own id, and the handler hears how each ended.
        #expect(recorder.prepared.map(\.attempt) == [1, 2])
        #expect(Set(recorder.prepared.map(\.id)).count == 2)
        #expect(recorder.log == ["prepare #1", "prepare #2", "#2 succeeded", "#1 abandoned"])
    }

    @Test func anObservedDelayCountsAWonCallFromItsFirstAttemptNotFromTheHedge() async throws {
        // Were only the winning hedge's own time kept, every hedged call would record less than
        // the delay that sent the hedge, and the observed p90 would sink call after call, hedging
        // ever more of them. Counted from the first attempt, the slow tail keeps the p90 up.
        let clock = TestClock(mode: .manual)
        let cancelled = Locked(0)
        let calls = EndpointLatencies.minimumSamples
        let transport = ScriptedTransport(
            Array(repeating: [Self.slow(clock, .seconds(1), cancelled: cancelled), .tasks], count: calls).flatMap { $0 }
        )
        let api = try makeManager(transport, clock: clock)
        let policy = HedgingPolicy(delay: .observedP90(window: calls, initial: .milliseconds(100)))
        for _ in 0..<calls {
            let call = Task { try await api.send(Self.hedged(policy: policy)) }
            try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
            _ = try await call.value
        }
        #expect(transport.requests.count == 2 * calls)
        #expect(api.latencies.p90(of: "GET /tasks") == .milliseconds(100))
    }

    @Test func anAnswerBeforeTheDelayIsNotHedged() async throws {
        let clock = TestClock(mode: .manual)
        let cancelled = Locked(0)
        let transport = ScriptedTransport([Self.slow(clock, .milliseconds(50), cancelled: cancelled), .tasks])
        let api = try makeManager(transport, clock: clock)
        let call = Task { try await api.send(Self.hedged(policy: Self.after100ms)) }
        try await clock.advance(by: .milliseconds(50), whenSleepersReach: 2)
        _ = try await call.value
        #expect(transport.requests.count == 1)
        #expect(cancelled.withLock { $0 } == 0)
    }

    @Test func aRequestThatMayNotBeSentTwiceIsNeverHedged() async throws {
        let methods: [HTTPRequest.Method] = [.get, .head, .put, .delete, .post, .patch]
        await propertyCheck(input: Gen.int(in: 0...(methods.count - 1)), Gen.bool) { index, key in
            let method = methods[index]
            let resendable = BackendTemporaryErrorHandler.idempotentMethods.contains(method) || key
            let clock = TestClock(mode: .manual)
            let cancelled = Locked(0)
            let transport = ScriptedTransport([Self.slow(clock, .seconds(1), cancelled: cancelled), .tasks])
            let api = try makeManager(transport, clock: clock)
            let call = Task { try await api.send(Self.hedged(method, key: key, policy: Self.after100ms)) }
            // A hedged call has its hedging timer asleep beside the transfer; another has not.
            try await clock.advance(by: .milliseconds(100), whenSleepersReach: resendable ? 2 : 1)
            if !resendable { try await clock.advance(by: .seconds(1), whenSleepersReach: 1) }
            _ = try await call.value
            #expect(transport.requests.count == (resendable ? 2 : 1), "\(method), key: \(key)")
            #expect(transport.requests.allSatisfy { $0.request.method == method })
            #expect(cancelled.withLock { $0 } == (resendable ? 1 : 0))
        }
    }

    @Test func noHedgeGoesOutWhileTheRetryBudgetHoldsHalfItsTokensOrLess() async throws {
        let budget = RetryBudget(maxTokens: 10)
        for _ in 0..<5 { budget.recordFailure() }
        let clock = TestClock(mode: .manual)
        let cancelled = Locked(0)
        let transport = ScriptedTransport([Self.slow(clock, .seconds(1), cancelled: cancelled)])
        // The policy names no budget: the data manager's backend-temporary handler's is used.
        let api = try makeManager(transport, handlers: [temporaryHandler(budget: budget)], clock: clock)
        let call = Task { try await api.send(Self.hedged(policy: Self.after100ms)) }
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
        try await clock.advance(by: .seconds(1), whenSleepersReach: 1)
        _ = try await call.value
        #expect(transport.requests.count == 1)
        // One more success, and the budget holds more than half again: the next call hedges.
        #expect(budget.tokens > 5)
        let cancelledToo = Locked(0)
        transport.append(Self.slow(clock, .seconds(1), cancelled: cancelledToo), .tasks)
        let second = Task { try await api.send(Self.hedged(policy: Self.after100ms)) }
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
        _ = try await second.value
        #expect(transport.requests.count == 3)
        #expect(cancelledToo.withLock { $0 } == 1)
    }

    @Test func aRetryableFailureSendsTheNextHedgeAtOnceWithoutTheBackoff() async throws {
        let clock = TestClock(mode: .manual)
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try makeManager(transport, handlers: [temporaryHandler()], clock: clock)
        let answer = try await api.response(for: Self.hedged(policy: Self.after100ms))
        #expect(transport.requests.count == 2)
        // No wait on the clock: the retry went out at once.
        #expect(clock.sleeps.allSatisfy { $0 == .milliseconds(100) })
        #expect(answer.history.attempts.map(\.delayBefore) == [.zero, .zero])
    }

    @Test func hedgesCountTowardTheCallsMaximumAttempts() async throws {
        let clock = TestClock(mode: .manual)
        let cancelled = Locked(0)
        let transport = ScriptedTransport([
            Self.slow(clock, .seconds(5), cancelled: cancelled), .status(.serviceUnavailable),
            Self.slow(clock, .seconds(5), cancelled: cancelled),
        ])
        let api = try makeManager(
            transport, handlers: [temporaryHandler()], limits: RequestLimits(maxAttempts: 3), clock: clock)
        let call = Task { try await api.send(Self.hedged(policy: Self.after100ms)) }
        // #1 stalls; #2 (the hedge) fails at once and #3 replaces it at once; then no timer is left.
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
        #expect(await waitUntil { transport.requests.count == 3 })
        // #1 answers (at 5 s), #3 (due at 5.1 s) not yet: it is the loser.
        try await clock.advance(by: .milliseconds(4_950), whenSleepersReach: 2)
        _ = try await call.value
        #expect(transport.requests.count == 3)
        #expect(cancelled.withLock { $0 } == 1)
    }

    /// Takes its time over every attempt after the first, as a rate limiter waiting for a token
    /// does, and records the outcomes it hears.
    final class SlowToPrepareHedges: RecoverableErrorHandler, Sendable {
        let clock: TestClock
        private let calls = Locked<[String]>([])

        init(clock: TestClock) { self.clock = clock }

        var log: [String] { calls.withLock { $0 } }

        func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

        func prepare(_ request: inout HTTPRequest, context: AttemptContext) async throws {
            calls.withLock { $0.append("prepare #\(context.attempt)") }
            if context.attempt > 1 { try await clock.sleep(for: .seconds(10)) }
        }

        func attemptDidEnd(_ outcome: AttemptOutcome, context: AttemptContext) async {
            let kind =
                if case .succeeded = outcome { "succeeded" } else if case .abandoned = outcome { "abandoned" } else {
                    "other"
                }
            calls.withLock { $0.append("#\(context.attempt) \(kind)") }
        }
    }

    /// The first attempt's answer is taken while a hedge is still being prepared: the call does
    /// not wait for a handler that holds the hedge back, and that handler hears the hedge end.
    @Test func anAnswerThatComesWhileAHedgeIsPreparedEndsTheCallAtOnce() async throws {
        let clock = TestClock(mode: .manual)
        let cancelled = Locked(0)
        let transport = ScriptedTransport([Self.slow(clock, .milliseconds(300), cancelled: cancelled), .tasks])
        let handler = SlowToPrepareHedges(clock: clock)
        let api = try makeManager(transport, handlers: [handler], clock: clock)
        let finished = Locked(false)
        let call = Task {
            defer { finished.withLock { $0 = true } }
            return try await api.response(for: Self.hedged(policy: Self.after100ms))
        }
        // The transfer and the hedging timer sleep; at 100 ms the hedge's preparing begins.
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
        // The transfer, the handler's wait and the deadline's race with it sleep; at 300 ms the
        // first attempt answers.
        try await clock.advance(by: .milliseconds(200), whenSleepersReach: 3)
        let endedWithoutTheHedge = await waitUntil { finished.withLock { $0 } }
        #expect(endedWithoutTheHedge)
        if !endedWithoutTheHedge { clock.advance(by: .seconds(10)) }
        let answer = try await call.value
        #expect(answer.history.attempts.map(\.number) == [1])
        #expect(transport.requests.count == 1)
        #expect(handler.log == ["prepare #1", "prepare #2", "#1 succeeded", "#2 abandoned"])
    }

    /// The first attempt fails for the last time while its hedge is still being prepared; the
    /// call waits for the hedge, and is cancelled meanwhile: it ends cancelled, over the failure.
    @Test func aCallCancelledWhileItsHedgeIsPreparedEndsCancelledNotWithTheFailure() async throws {
        let clock = TestClock(mode: .manual)
        let unavailable = ScriptedTransport.Step.reply { _, _ throws(NetworkError) in
            try? await clock.sleep(for: .milliseconds(300))
            return TransportResponse(head: HTTPResponse(status: .serviceUnavailable))
        }
        let transport = ScriptedTransport([unavailable])
        let handler = SlowToPrepareHedges(clock: clock)
        let api = try makeManager(
            transport, handlers: [handler], limits: RequestLimits(maxAttempts: 2), clock: clock)
        let call = Task { try await api.send(Self.hedged(policy: Self.after100ms)) }
        // At 100 ms the hedge's preparing begins; at 300 ms the first attempt answers 503.
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
        try await clock.advance(by: .milliseconds(200), whenSleepersReach: 3)
        #expect(await waitUntil { handler.log.contains("#1 other") })
        call.cancel()
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE\(RecoveryErrorCode.cancelled.rawValue)-HT503")
    }

    @Test func cancellingAHedgedCallCancelsEveryAttemptInFlight() async throws {
        let clock = TestClock(mode: .manual)
        let transport = ScriptedTransport([.waitForCancellation, .waitForCancellation])
        let recorder = HandlerHookTests.Recorder()
        let api = try makeManager(transport, handlers: [recorder], clock: clock)
        let call = Task { try await api.send(Self.hedged(policy: Self.after100ms)) }
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 1)
        #expect(await waitUntil { transport.requests.count == 2 })
        call.cancel()
        await #expect(throws: APIError.self) { try await call.value }
        #expect(Set(recorder.log.suffix(2)) == ["#1 cancelled", "#2 cancelled"])
    }

    @Test func theMonitorHearsTheHedgeAndTheAbandonedAttempt() async throws {
        let clock = TestClock(mode: .manual)
        let cancelled = Locked(0)
        let transport = ScriptedTransport([Self.slow(clock, .seconds(1), cancelled: cancelled), .tasks])
        let monitor = EventLog()
        let api = try APIDataManager(
            baseURL: "https://api.example.com/v1", transport: transport, time: clock.timeSource, monitor: monitor)
        let call = Task { try await api.send(Self.hedged(policy: Self.after100ms)) }
        try await clock.advance(by: .milliseconds(100), whenSleepersReach: 2)
        _ = try await call.value
        #expect(
            monitor.lines == [
                "callStarted", "attemptStarted #1", "attemptSent #1", "hedging #2 after 0.1 seconds",
                "attemptStarted #2", "attemptSent #2", "attemptSucceeded #2", "attemptAbandoned #1", "callSucceeded",
            ])
    }

    final class EventLog: APIEventMonitor {
        private let events = Locked<[String]>([])

        var lines: [String] { events.withLock { $0 } }

        func receive(_ event: APIEvent) {
            var line = event.kind.description
            if let attempt = event.attempt { line += " #\(attempt)" }
            if let delay = event.delay { line += " after \(delay)" }
            events.withLock { $0.append(line) }
        }
    }
}
