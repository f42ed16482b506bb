import Foundation
import HTTPTypes
import Logging
import MetricsTestKit
import ReboundTesting
import Testing

@testable import Rebound

/// The breaker in the pipeline, over a scripted transport and a test clock; one attempt per call,
/// so that every call is one attempt the breaker counts.
@Suite struct CircuitBreakerHandlerTests {
    /// Breaks without jitter, so that their lengths can be read exactly.
    static let exact = CircuitBreakerHandler.Configuration(breakJitter: 0)

    /// A pipeline with the breaker first and one attempt per call.
    struct Fixture: Sendable {
        let clock = TestClock()
        let transport = ScriptedTransport([])
        let breaker: CircuitBreakerHandler
        let transitions = Locked<[CircuitBreakerHandler.Transition]>([])
        let api: APIDataManager

        init(
            _ configuration: CircuitBreakerHandler.Configuration = CircuitBreakerHandlerTests.exact,
            after: [any RecoverableErrorHandler] = [],
            logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            metrics: TestMetrics? = nil
        ) throws {
            let transitions = transitions
            breaker = CircuitBreakerHandler(
                configuration: configuration, random: SeededRandom(seed: 3), logger: logger,
                metricsFactory: metrics, onTransition: { transition in transitions.withLock { $0.append(transition) } })
            api = try makeManager(
                transport, handlers: [breaker] + after, limits: RequestLimits(maxAttempts: 1), clock: clock)
        }

        /// Sends one call per step; the short chain of each failure, `ok` for a success.
        @discardableResult
        func calls(
            _ steps: [ScriptedTransport.Step],
            _ endpoint: Endpoint<[TaskItem], APIErrorCode> = SampleEndpoints.listTasks
        ) async -> [String] {
            var results: [String] = []
            for step in steps {
                transport.append(step)
                results.append(await call(endpoint))
            }
            return results
        }

        /// One call; its short chain, or `ok`. Whatever the script holds is left for later calls.
        func call(_ endpoint: Endpoint<[TaskItem], APIErrorCode> = SampleEndpoints.listTasks) async -> String {
            do {
                _ = try await api.send(endpoint)
                return "ok"
            } catch {
                return error.chain.short
            }
        }

        var sent: Int { transport.requests.count }
        var states: [String] { transitions.withLock { $0.map { "\($0.from)→\($0.to)" } } }
    }

    static func failures(_ count: Int) -> [ScriptedTransport.Step] {
        Array(repeating: .status(.serviceUnavailable), count: count)
    }

    static func successes(_ count: Int) -> [ScriptedTransport.Step] {
        Array(repeating: .tasks, count: count)
    }

    @Test func halfOfTenAttemptsFailingOpensTheCircuitAndTheNextIsNotSent() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.successes(5) + Self.failures(4))
        #expect(fixture.breaker.status(of: "api.example.com").state == .closed)
        await fixture.calls(Self.failures(1))
        #expect(fixture.breaker.status(of: "api.example.com").state == .open)
        #expect(fixture.states == ["closed→open"])
        #expect(await fixture.call() == "AP8-RE50")
        #expect(fixture.sent == 10)
    }

    @Test func aRetryTheOpenCircuitRefusesEndsTheCallWhoseHistoryKeepsTheFailures() async throws {
        let transport = ScriptedTransport(Self.failures(10))
        let breaker = CircuitBreakerHandler(configuration: Self.exact)
        let retries = temporaryHandler(budget: RetryBudget(maxTokens: 1_000))
        let api = try makeManager(transport, handlers: [breaker, retries])
        // Four attempts, then four, then two: the tenth failure opens the circuit, and the
        // third call's next retry is refused before it is sent.
        for _ in 0..<2 { _ = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) } }
        #expect(transport.requests.count == 8)
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE50")
        #expect(transport.requests.count == 10)
        #expect(
            error?.attachment(AttemptHistory.self)?.summary
                == "#1 HT503 → BackendTemporaryErrorHandler, #2 (after 0.2 seconds) HT503 → BackendTemporaryErrorHandler"
        )
    }

    @Test func nineFailuresInARowStayBelowTheMinimum() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(9))
        let status = fixture.breaker.status(of: "api.example.com")
        #expect(status.state == .closed)
        #expect(status.attempts == 9 && status.failures == 9)
        await fixture.calls(Self.failures(1))
        #expect(fixture.breaker.status(of: "api.example.com").state == .open)
    }

    @Test func onlyTheLastTwentyAttemptsCount() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(1) + Self.successes(19))
        #expect(fixture.breaker.status(of: "api.example.com").failures == 1)
        // The next success pushes the failure out of the window.
        await fixture.calls(Self.successes(1))
        var status = fixture.breaker.status(of: "api.example.com")
        #expect(status.attempts == 20 && status.failures == 0)
        await fixture.calls(Self.failures(9))
        status = fixture.breaker.status(of: "api.example.com")
        #expect(status.state == .closed && status.failures == 9)
        // 10 of the last 20 (though 11 of all 31): half, which opens it.
        await fixture.calls(Self.failures(1))
        #expect(fixture.breaker.status(of: "api.example.com").state == .open)
    }

    @Test func clientErrorsCountAsAnswersAndTooManyRequestsNotAtAll() async throws {
        let fixture = try Fixture()
        await fixture.calls(Array(repeating: .status(.notFound), count: 10))
        await fixture.calls(Array(repeating: .status(.tooManyRequests), count: 30))
        let status = fixture.breaker.status(of: "api.example.com")
        #expect(status.state == .closed)
        #expect(status.attempts == 10 && status.failures == 0)
    }

    @Test func refusedAndResetConnectionsAndTimeoutsAreFailuresButATLSFailureIsNot() async throws {
        let fixture = try Fixture()
        await fixture.calls(Array(repeating: .fail(NetworkError(.tlsFailure)), count: 12))
        #expect(fixture.breaker.status(of: "api.example.com").attempts == 0)
        let outage: [ScriptedTransport.Step] = [
            .fail(NetworkError(.cannotConnect)), .fail(NetworkError(.connectionReset)), .fail(NetworkError(.timeout)),
        ]
        await fixture.calls(Array(repeating: outage, count: 4).flatMap { $0 })
        #expect(fixture.breaker.status(of: "api.example.com").state == .open)
        #expect(fixture.sent == 12 + 10)
    }

    @Test func theRefusalSaysWhenTheNextProbeMayGoAndThePersonIsToldSo() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(10))
        fixture.clock.advance(by: .milliseconds(1_500))
        let error = await #expect(throws: APIError.self) { try await fixture.api.send(SampleEndpoints.listTasks) }
        #expect(
            error?.cause?.attachment(CircuitOpen.self)
                == CircuitOpen(key: "api.example.com", retryAfter: .milliseconds(3_500)))
        let shown = ErrorPresenter.standard.present(try #require(error))
        #expect(shown.messageKey == "circuitOpen")
        #expect(shown.message == "The service is unavailable. Please try again in 4 s.")
        #expect(shown.isRecoverable)
    }

    @Test func afterTheBreakOneProbeGoesThroughAndItsSuccessClosesTheCircuit() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(10))
        fixture.clock.advance(by: .seconds(5))
        let gate = Gate()
        let probing = Task {
            await fixture.calls([
                .reply({ _, _ in
                    await gate.wait(); return Self.tasksResponse
                })
            ])
        }
        #expect(await eventually { fixture.sent == 11 })
        // The probe is out: a second attempt is refused while it is.
        #expect(await fixture.call() == "AP8-RE50")
        #expect(fixture.breaker.status(of: "api.example.com").state == .halfOpen)
        gate.open()
        #expect(await probing.value == ["ok"])
        #expect(fixture.states == ["closed→open", "open→halfOpen", "halfOpen→closed"])
        let status = fixture.breaker.status(of: "api.example.com")
        #expect(status.state == .closed && status.attempts == 0)
        #expect(await fixture.calls(Self.successes(1)) == ["ok"])
    }

    static let tasksResponse = TransportResponse(
        head: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
        body: Data(#"[{"id":1,"title":"Label the picture"}]"#.utf8))

    @Test func eachFailedProbeDoublesTheBreakUpToTheMaximum() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(10))
        for _ in 0..<6 {
            let current = try #require(fixture.transitions.withLock { $0.last?.breakDuration })
            fixture.clock.advance(by: current)
            #expect(await fixture.calls(Self.failures(1)) == ["AP8-HT503"])
        }
        let breaks = fixture.transitions.withLock { $0.compactMap(\.breakDuration) }
        #expect(breaks == [5, 10, 20, 40, 60, 60, 60].map { Duration.seconds($0) })
        #expect(fixture.breaker.status(of: "api.example.com").failedProbes == 6)
        // A success closes it and forgets the failed probes.
        fixture.clock.advance(by: .seconds(60))
        await fixture.calls(Self.successes(1))
        await fixture.calls(Self.failures(10))
        #expect(fixture.transitions.withLock { $0.last?.breakDuration } == .seconds(5))
    }

    @Test func breaksAreJitteredWithinAFifthAndReproducibleFromTheSeed() async throws {
        var first: [Duration] = []
        for run in 0..<2 {
            let fixture = try Fixture(.default)
            await fixture.calls(Self.failures(10))
            for _ in 0..<4 {
                fixture.clock.advance(by: .seconds(120))
                await fixture.calls(Self.failures(1))
            }
            let breaks = fixture.transitions.withLock { $0.compactMap(\.breakDuration) }
            for (index, duration) in breaks.enumerated() {
                let nominal = CircuitBreakerHandler.Configuration.default.breakDuration(afterFailedProbes: index)
                #expect(duration >= nominal * 0.8 && duration <= nominal * 1.2)
            }
            if run == 0 { first = breaks } else { #expect(breaks == first) }
        }
        #expect(
            Set(first.map { $0 / CircuitBreakerHandler.Configuration.default.breakDuration(afterFailedProbes: 0) })
                .count > 1)
    }

    @Test func aProbeRefusedByALaterHandlerGivesItsSlotBack() async throws {
        let refuseNext = Locked(true)
        let fixture = try Fixture(after: [RefuseOnce(refuseNext: refuseNext)])
        refuseNext.withLock { $0 = false }
        await fixture.calls(Self.failures(10))
        fixture.clock.advance(by: .seconds(5))
        refuseNext.withLock { $0 = true }
        #expect(await fixture.call() == "AP8-RE30-XX0")
        #expect(fixture.breaker.status(of: "api.example.com").state == .halfOpen)
        // The refused probe was never sent; the next attempt is the probe.
        #expect(await fixture.calls(Self.successes(1)) == ["ok"])
        #expect(fixture.breaker.status(of: "api.example.com").state == .closed)
    }

    @Test func aCancelledProbeGivesItsSlotBack() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(10))
        fixture.clock.advance(by: .seconds(5))
        fixture.transport.append(.waitForCancellation)
        let probe = Task { await fixture.call() }
        #expect(await eventually { fixture.sent == 11 })
        probe.cancel()
        #expect(await probe.value == "AP8-NE14")
        #expect(await fixture.calls(Self.successes(1)) == ["ok"])
        #expect(fixture.breaker.status(of: "api.example.com").state == .closed)
    }

    @Test func aCircuitIsolatedByHandRefusesUntilReset() async throws {
        let fixture = try Fixture()
        fixture.breaker.isolate("api.example.com")
        #expect(await fixture.call() == "AP8-RE51")
        fixture.clock.advance(by: .seconds(600))
        #expect(await fixture.call() == "AP8-RE51")
        #expect(fixture.sent == 0)
        fixture.breaker.reset("api.example.com")
        #expect(await fixture.calls(Self.successes(1)) == ["ok"])
        #expect(fixture.states == ["closed→isolated", "isolated→closed"])
        #expect(fixture.transitions.withLock { $0.map(\.at) } == [nil, nil])
    }

    @Test func resetClosesAnOpenCircuitAndForgetsItsWindow() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(10))
        fixture.breaker.reset("api.example.com")
        #expect(fixture.breaker.status(of: "api.example.com").attempts == 0)
        #expect(await fixture.calls(Self.failures(9)) == Array(repeating: "AP8-HT503", count: 9))
        #expect(fixture.breaker.status(of: "api.example.com").state == .closed)
    }

    @Test func anEndpointMayCountInACircuitOfItsOwn() async throws {
        let fixture = try Fixture()
        var payments = SampleEndpoints.listTasks
        payments.options.circuitBreakerKey = "payments"
        await fixture.calls(Self.failures(10), payments)
        #expect(fixture.breaker.status(of: "payments").state == .open)
        #expect(await fixture.call(payments) == "AP8-RE50")
        #expect(await fixture.calls(Self.successes(1)) == ["ok"])
        #expect(fixture.breaker.status(of: "api.example.com").state == .closed)
    }

    @Test func anEndpointThatSkipsTheBreakerGoesThroughAnOpenCircuit() async throws {
        let fixture = try Fixture()
        await fixture.calls(Self.failures(10))
        let refresh = SampleEndpoints.listTasks.skipping(.type(CircuitBreakerHandler.self))
        #expect(await fixture.calls(Self.successes(1), refresh) == ["ok"])
        #expect(await fixture.call() == "AP8-RE50")
    }

    @Test func atMostTheConfiguredNumberOfCircuitsAreKeptForgettingTheLeastRecentlyUsedClosedOne() async throws {
        let fixture = try Fixture(.init(breakJitter: 0, maximumKeys: 2))
        var first = SampleEndpoints.listTasks
        first.options.circuitBreakerKey = "first"
        var second = SampleEndpoints.listTasks
        second.options.circuitBreakerKey = "second"
        var third = SampleEndpoints.listTasks
        third.options.circuitBreakerKey = "third"
        await fixture.calls(Self.failures(10), first)
        await fixture.calls(Self.successes(1), second)
        await fixture.calls(Self.successes(1), third)
        #expect(Set(fixture.breaker.keys) == ["first", "third"])
        #expect(fixture.breaker.status(of: "first").state == .open)
        #expect(fixture.breaker.status(of: "second").attempts == 0)
    }

    @Test func changesOfStateAreLoggedAndCountedAndRefusalsCounted() async throws {
        let recorder = RecordingLogHandler()
        let metrics = TestMetrics()
        let fixture = try Fixture(logger: Logger(label: "test", factory: { _ in recorder }), metrics: metrics)
        await fixture.calls(Self.failures(10))
        _ = await fixture.call()
        _ = await fixture.call()
        let lines = recorder.lines.withLock { $0 }
        #expect(lines.map(\.message) == ["circuit open"])
        #expect(lines.first?.level == .notice)
        #expect(lines.first?.metadata["key"] == "api.example.com")
        #expect(lines.first?.metadata["break"] == "5.0 seconds")
        let opened = try metrics.expectCounter(
            "rebound_circuit_transitions_total", [("key", "api.example.com"), ("from", "closed"), ("to", "open")])
        #expect(opened.totalValue == 1)
        #expect(
            try metrics.expectCounter("rebound_circuit_refusals_total", [("key", "api.example.com")]).totalValue == 2)
    }

    @Test func eachCircuitsStateIsAGaugeThatFollowsItsChangesInOrder() async throws {
        let metrics = TestMetrics()
        let fixture = try Fixture(metrics: metrics)
        await fixture.calls(Self.successes(1))
        let gauge = try metrics.expectGauge("rebound_circuit_state", [("key", "api.example.com")])
        #expect(gauge.values == [0])
        // With the success, ten attempts in the window: the ninth failure opens the circuit.
        await fixture.calls(Self.failures(9))
        fixture.clock.advance(by: .seconds(5))
        await fixture.calls(Self.successes(1))
        fixture.breaker.isolate("api.example.com")
        fixture.breaker.reset("api.example.com")
        // Closed, open, the probe's half-open, closed by its success, isolated, reset.
        #expect(gauge.values == [0, 2, 1, 0, 3, 0])
        #expect(CircuitBreakerHandler.State.allCases.map(\.gaugeValue) == [0, 2, 1, 3])
    }

    @Test func aForgottenCircuitTakesItsGaugeSeriesWithIt() async throws {
        let metrics = TestMetrics()
        let fixture = try Fixture(.init(breakJitter: 0, maximumKeys: 2), metrics: metrics)
        var endpoints: [String: Endpoint<[TaskItem], APIErrorCode>] = [:]
        for key in ["first", "second", "third"] {
            endpoints[key] = SampleEndpoints.listTasks
            endpoints[key]?.options.circuitBreakerKey = key
        }
        await fixture.calls(Self.failures(10), endpoints["first"]!)
        await fixture.calls(Self.successes(1), endpoints["second"]!)
        await fixture.calls(Self.successes(1), endpoints["third"]!)
        // "second", closed, made room for "third": no series reports it any more.
        #expect(throws: (any Error).self) { try metrics.expectGauge("rebound_circuit_state", [("key", "second")]) }
        #expect(try metrics.expectGauge("rebound_circuit_state", [("key", "first")]).lastValue == 2)
        #expect(try metrics.expectGauge("rebound_circuit_state", [("key", "third")]).lastValue == 0)
        #expect(metrics.recorders(label: "rebound_circuit_state").count == 2)
    }

    /// The transitions and refusals of a circuit that is forgotten go with it: however many keys
    /// come and go, the counters' series stay as few as the circuits kept.
    @Test func aForgottenCircuitTakesItsCounterSeriesWithIt() async throws {
        let metrics = TestMetrics()
        let fixture = try Fixture(.init(breakJitter: 0, maximumKeys: 1), metrics: metrics)
        var first = SampleEndpoints.listTasks
        first.options.circuitBreakerKey = "first"
        var second = SampleEndpoints.listTasks
        second.options.circuitBreakerKey = "second"
        // Ten failures open "first"; the call after them is refused.
        await fixture.calls(Self.failures(10), first)
        #expect(await fixture.call(first).contains("RE50"))
        let opened = [("key", "first"), ("from", "closed"), ("to", "open")]
        #expect(try metrics.expectCounter("rebound_circuit_transitions_total", opened).totalValue == 1)
        #expect(try metrics.expectCounter("rebound_circuit_refusals_total", [("key", "first")]).totalValue == 1)

        // "second" takes the only place: "first" is forgotten, with its series.
        await fixture.calls(Self.successes(1), second)
        #expect(fixture.breaker.keys == ["second"])
        #expect(throws: (any Error).self) { try metrics.expectCounter("rebound_circuit_transitions_total", opened) }
        #expect(throws: (any Error).self) {
            try metrics.expectCounter("rebound_circuit_refusals_total", [("key", "first")])
        }
    }

    @Test func outOfRangeSettingsAreBroughtIntoRange() {
        let configuration = CircuitBreakerHandler.Configuration(
            windowSize: 0, minimumAttempts: 50, failureRatio: .nan, breakDuration: .seconds(-1),
            maximumBreakDuration: .seconds(-5), breakJitter: 3, probeCount: -2, maximumKeys: 0)
        #expect(configuration.windowSize == 1 && configuration.minimumAttempts == 1)
        #expect(configuration.failureRatio == 0.5 && configuration.breakJitter == 1)
        #expect(configuration.breakDuration == .zero && configuration.maximumBreakDuration == .zero)
        #expect(configuration.probeCount == 1 && configuration.maximumKeys == 1)
    }
}

/// Refuses the attempts it is told to, as a later handler (a bulkhead with a full queue) would.
struct RefuseOnce: RecoverableErrorHandler {
    struct Refused: Error {}
    let refuseNext: Locked<Bool>

    var hooks: HandlerHooks { .prepareSynchronously }

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    func prepareSynchronously(_ request: inout HTTPRequest, context: AttemptContext) throws -> SynchronousPreparation {
        if refuseNext.withLock({ refuse in
            defer { refuse = false }; return refuse
        }) {
            throw Refused()
        }
        return .done
    }
}
