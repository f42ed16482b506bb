import Foundation
import HTTPTypes
import MetricsTestKit
import ReboundTesting
import Testing

@testable import Rebound

/// The adaptive limiter in the pipeline over a scripted transport, and its rate driven through
/// its hooks on a test clock.
@Suite struct AdaptiveRateLimitHandlerTests {
    static let host = "api.example.com"

    static func throttled(_ fields: [(String, String)] = []) -> ScriptedTransport.Step {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return .respond(status: .tooManyRequests, headers: headers, body: Data())
    }

    /// A call started in a task of its own; its short chain, or `ok`.
    static func start(_ api: APIDataManager) -> Task<String, Never> {
        Task {
            do {
                _ = try await api.send(SampleEndpoints.listTasks)
                return "ok"
            } catch {
                return error.chain.short
            }
        }
    }

    // MARK: - In the pipeline

    @Test func aServiceThatNeverThrottledIsNotLimited() async throws {
        let clock = TestClock(mode: .manual)
        let limiter = AdaptiveRateLimitHandler()
        let transport = ScriptedTransport(Array(repeating: .tasks, count: 20))
        let api = try makeManager(transport, handlers: [limiter], clock: clock)
        for _ in 0..<20 { _ = try await api.send(SampleEndpoints.listTasks) }
        #expect(transport.requests.count == 20)
        #expect(clock.sleeps.isEmpty)
        #expect(limiter.status(of: Self.host).isLimiting == false)
    }

    @Test func aThrottledRetryWaitsForRetryAfterInPrepareAndIsNotChargedToTheBudget() async throws {
        let clock = TestClock(mode: .manual)
        let budget = RetryBudget(maxTokens: 10)
        let limiter = AdaptiveRateLimitHandler()
        let transport = ScriptedTransport([Self.throttled([("Retry-After", "3")]), .tasks])
        let api = try makeManager(transport, handlers: [limiter, temporaryHandler(budget: budget)], clock: clock)
        let call = Self.start(api)
        // The retry's prepare waits for the pause, raced by the call's deadline: two sleepers.
        try await clock.advance(by: .seconds(2), whenSleepersReach: 2)
        #expect(transport.requests.count == 1)
        try await clock.advance(by: .seconds(1), whenSleepersReach: 2)
        #expect(await call.value == "ok")
        #expect(transport.requests.count == 2)
        #expect(clock.sleeps.contains(.seconds(3)))
        #expect(budget.tokens == 10)
        #expect(limiter.status(of: Self.host).isLimiting)
    }

    @Test func withoutALimiterTheThrottleIsRetriedWithBackoffAndCharged() async throws {
        let budget = RetryBudget(maxTokens: 10)
        let transport = ScriptedTransport([Self.throttled(), .tasks])
        let api = try makeManager(transport, handlers: [temporaryHandler(budget: budget)])
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(transport.requests.count == 2)
        #expect(abs(budget.tokens - 9.1) < 1e-9)
    }

    @Test func aWaitPastTheDeadlineIsRefusedAtOnceAndThePersonToldWhenToTryAgain() async throws {
        let clock = TestClock(mode: .manual)
        let limiter = AdaptiveRateLimitHandler()
        let transport = ScriptedTransport([Self.throttled([("Retry-After", "45")]), .tasks])
        let api = try makeManager(
            transport, handlers: [limiter, temporaryHandler()], limits: RequestLimits(deadline: .seconds(30)),
            clock: clock)
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE53")
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
        let refusal = try #require(error?.cause as? RecoveryError)
        #expect(refusal.attachment(RateLimitWait.self)?.retryAfter == .seconds(45))
        #expect(
            refusal.reason
                == "api.example.com accepts fewer requests for now; attempt 2 would wait 45 s for its turn, "
                + "past the call's deadline, and was not sent.")
        let presented = ErrorPresenter.standard.present(try #require(error))
        #expect(presented.messageKey == "rateLimitWait")
        #expect(presented.message == "Too many requests in a short time. Please try again in 45 s.")
    }

    @Test func aRequestThatMayNotBeSentTwiceIsNotRecovered() async throws {
        let limiter = AdaptiveRateLimitHandler()
        let transport = ScriptedTransport([Self.throttled()])
        let api = try makeManager(transport, handlers: [limiter])
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.token) }
        #expect(error?.chain.short == "AP7-HT429")
        #expect(transport.requests.count == 1)
    }

    @Test func aWaiterWhoseTaskIsCancelledLeavesTheQueue() async throws {
        let clock = TestClock(mode: .manual)
        let limiter = AdaptiveRateLimitHandler()
        let transport = ScriptedTransport([Self.throttled([("Retry-After", "10")])])
        let api = try makeManager(transport, handlers: [limiter], clock: clock)
        let call = Self.start(api)
        #expect(await eventually { limiter.status(of: Self.host).waiting == 1 })
        call.cancel()
        #expect(await call.value == "AP8-RE40-CA1")
        #expect(limiter.status(of: Self.host).waiting == 0)
        #expect(transport.requests.count == 1)
    }

    @Test func anEndpointMayTakeTokensFromABucketOfItsOwn() async throws {
        let limiter = AdaptiveRateLimitHandler()
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport, handlers: [limiter])
        var options = EndpointOptions()
        options.rateLimitKey = "search"
        let endpoint = Endpoint.get(
            "/search", returning: [TaskItem].self, errorCode: APIErrorCode.listTasksFailed, options: options)
        _ = try await api.send(endpoint)
        #expect(limiter.keys == ["search"])
    }

    // MARK: - The rate, through the hooks

    /// The limiter's hooks on an immediate clock: `prepare` sleeps move it.
    struct Driver {
        let clock = TestClock()
        let limiter: AdaptiveRateLimitHandler
        var calls: UInt64 = 0

        init(_ configuration: AdaptiveRateLimitHandler.Configuration = .default, metrics: TestMetrics? = nil) {
            limiter = AdaptiveRateLimitHandler(configuration: configuration, metricsFactory: metrics)
        }

        func context(_ call: UInt64, deadline: Duration = .seconds(1_000_000)) -> AttemptContext {
            AttemptContext(
                id: AttemptID(call: call, attempt: 1), maxAttempts: 1, deadline: deadline, method: .get,
                path: "/tasks", time: clock.timeSource)
        }

        static func request(_ host: String = AdaptiveRateLimitHandlerTests.host) -> HTTPRequest {
            HTTPRequest(method: .get, scheme: "https", authority: host, path: "/tasks")
        }

        /// One attempt: prepared (waiting as long as it must), then answered with `status`.
        mutating func attempt(
            _ status: HTTPResponse.Status = .ok, fields: [(String, String)] = [], host: String = host
        ) async throws {
            calls += 1
            let context = context(calls)
            var request = Self.request(host)
            try await limiter.prepare(&request, context: context)
            limiter.attemptDidEndSynchronously(Self.outcome(status, fields, request, context), context: context)
        }

        /// An answer to an attempt that was never prepared: only the rate hears it.
        mutating func answer(_ status: HTTPResponse.Status = .ok, sentAgo: Duration = .zero) {
            calls += 1
            let context = context(calls)
            let outcome = Self.outcome(status, [], Self.request(), context, took: sentAgo)
            limiter.attemptDidEndSynchronously(outcome, context: context)
        }

        static func outcome(
            _ status: HTTPResponse.Status, _ fields: [(String, String)], _ request: HTTPRequest,
            _ context: AttemptContext, took duration: Duration = .zero
        ) -> AttemptOutcome {
            var headers = HTTPFields()
            for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            let head = HTTPResponse(status: status, headerFields: headers)
            guard status.kind == .successful else {
                let failure = FailedAttempt(
                    error: HTTPError(response: head), request: request, body: nil,
                    response: TransportResponse(head: head), context: context, timeLeft: .seconds(1), history: [])
                return .failed(
                    failure,
                    record: AttemptRecord(
                        number: 1, status: status.code, chain: nil, delayBefore: .zero, duration: duration))
            }
            return .succeeded(request: request, response: TransportResponse(head: head))
        }

        /// `count` answers `every` apart.
        mutating func steady(_ count: Int, every gap: Duration) async throws {
            for _ in 0..<count {
                try await attempt()
                clock.advance(by: gap)
            }
        }

        var status: AdaptiveRateLimitHandler.Status { limiter.status(of: AdaptiveRateLimitHandlerTests.host) }
    }

    @Test func aTokenAtHandIsTakenInlineAndAWaitHandsOverToTheAsynchronousPrepare() async throws {
        let driver = Driver()
        var request = Driver.request()
        #expect(try driver.limiter.prepareSynchronously(&request, context: driver.context(1)) == .done)
        let throttled = Driver.outcome(.tooManyRequests, [("Retry-After", "3")], request, driver.context(1))
        driver.limiter.attemptDidEndSynchronously(throttled, context: driver.context(1))
        #expect(
            try driver.limiter.prepareSynchronously(&request, context: driver.context(2)) == .continueAsynchronously)
        let error = #expect(throws: RecoveryError.self) {
            try driver.limiter.prepareSynchronously(&request, context: driver.context(3, deadline: .seconds(1)))
        }
        #expect(error?.code == .rateLimited)
        #expect(driver.clock.sleeps.isEmpty)
        try await driver.limiter.prepare(&request, context: driver.context(2))
        #expect(driver.clock.sleeps == [.seconds(3)])
    }

    @Test func aThrottleCutsTheRateToSevenTenthsOfTheMeasuredAndCubicGrowsItBack() async throws {
        var driver = Driver()
        try await driver.steady(100, every: .milliseconds(100))
        let measured = driver.status.measuredRate
        #expect(abs(measured - 10) < 0.01)
        try await driver.attempt(.tooManyRequests)
        #expect(abs(driver.status.rate - 0.7 * measured) < 0.01)
        #expect(abs(driver.status.capacity - driver.status.rate) < 1e-9)
        // K = ∛(10 × 0.3 / 0.4) ≈ 1.957 s after the throttle the rate is back where it was:
        // 0.4 × (1.9 − K)³ + 10 ≈ 9.99992 just before, 10.00003 just after.
        var rates: [Double] = []
        for _ in 0..<20 {
            driver.clock.advance(by: .milliseconds(100))
            driver.answer()
            rates.append(driver.status.rate)
        }
        #expect(zip(rates, rates.dropFirst()).allSatisfy { $0 < $1 })
        #expect(rates[18] < measured && abs(rates[18] - measured) < 0.001)
        #expect(rates[19] > measured && abs(rates[19] - measured) < 0.001)
    }

    @Test func aThrottleBeforeTheFirstIntervalEndedCutsFromTheRateMeasuredSoFar() async throws {
        var driver = Driver()
        // 11 answers in 0.2 s: 22 a second over the half-second interval.
        try await driver.steady(10, every: .milliseconds(20))
        try await driver.attempt(.tooManyRequests)
        #expect(abs(driver.status.rate - 0.7 * 22) < 1e-9)
    }

    @Test func aThrottleThatSaysWhenToComeBackPausesWithoutACut() async throws {
        var driver = Driver()
        try await driver.steady(100, every: .milliseconds(100))
        let measured = driver.status.measuredRate
        try await driver.attempt(.tooManyRequests, fields: [("RateLimit", #""default";r=0;t=2"#)])
        #expect(abs(driver.status.rate - measured) < 0.01)
        #expect(driver.status.pausedUntil == .seconds(12))
        // No pause to go by: cut.
        let before = driver.status.rate
        try await driver.attempt(.tooManyRequests, fields: [("Retry-After", "0")])
        #expect(driver.status.rate <= 0.7 * before + 1e-9)
    }

    @Test func throttlesOfAttemptsSentBeforeTheLastCutDoNotCutAgain() async throws {
        var driver = Driver()
        try await driver.steady(100, every: .milliseconds(100))
        driver.answer(.tooManyRequests)
        let cut = driver.status.rate
        driver.clock.advance(by: .milliseconds(50))
        // In flight when the first came back: the same congestion, already answered.
        for _ in 0..<5 { driver.answer(.tooManyRequests, sentAgo: .milliseconds(60)) }
        #expect(driver.status.rate == cut)
        // Sent after the cut: a new one.
        driver.answer(.tooManyRequests, sentAgo: .milliseconds(40))
        #expect(driver.status.rate < cut)
    }

    @Test func whileLimitingAttemptsAreSpacedByTheRate() async throws {
        var driver = Driver()
        try await driver.steady(100, every: .milliseconds(100))
        try await driver.attempt(.tooManyRequests)
        let rate = driver.status.rate
        // The bucket starts empty: each attempt waits a token's time, 1/rate.
        let before = driver.clock.now
        try await driver.attempt()
        let waited = before.duration(to: driver.clock.now)
        #expect(abs(waited.seconds - 1 / rate) < 1e-6)
        // In naps of at most 0.1 s, so that a rate that rose meanwhile is seen.
        let naps = driver.clock.sleeps.suffix(2)
        #expect(naps.first == .milliseconds(100))
        #expect(naps.allSatisfy { $0 <= .milliseconds(100) })
    }

    @Test func theStatedQuotaCapsTheRate() async throws {
        var driver = Driver()
        try await driver.steady(100, every: .milliseconds(100))
        try await driver.attempt(.tooManyRequests, fields: [("RateLimit-Policy", #""default";q=3;w=1"#)])
        #expect(driver.status.rate == 3)
        try await driver.steady(40, every: .milliseconds(500))
        #expect(driver.status.rate == 3)
    }

    @Test func aSuccessSayingNothingRemainsPausesTheBucketUntilTheReset() async throws {
        var driver = Driver()
        try await driver.attempt(.ok, fields: [("RateLimit", #""default";r=0;t=7"#)])
        #expect(driver.status.isLimiting)
        #expect(driver.status.pausedUntil == .seconds(7))
        let before = driver.clock.now
        try await driver.attempt()
        #expect(before.duration(to: driver.clock.now) >= .seconds(7))
    }

    @Test func aSuccessPausesTheBucketForItsRateLimitFieldsNotItsRetryAfter() async throws {
        // `Retry-After` means nothing on a success (RFC 9110, 10.2.3), even beside RateLimit.
        var driver = Driver()
        try await driver.attempt(.ok, fields: [("RateLimit", #""default";r=0;t=1"#), ("Retry-After", "30")])
        #expect(driver.status.pausedUntil == .seconds(1))
    }

    @Test func xRateLimitFieldsPauseTheBucketToo() async throws {
        var driver = Driver()
        try await driver.attempt(.ok, fields: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1700000009")])
        #expect(driver.status.pausedUntil == .seconds(9))
    }

    /// A transport may leave a head unparsed until someone reads its fields: the limiter finds
    /// the fields in it all the same, and parses no head that holds none.
    @Test func theFieldsOfAHeadLeftUnparsedAreReadAndAHeadWithoutThemIsNotParsed() async throws {
        let parses = Locked(0)
        func answer(_ raw: String) -> TransportResponse {
            let head = DeferredResponseHead(status: .ok, raw: Array(raw.utf8)) { raw, status in
                parses.withLock { $0 += 1 }
                var fields = HTTPFields()
                for line in String(decoding: raw, as: UTF8.self).split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, let name = HTTPField.Name(String(parts[0])) else { continue }
                    fields.append(HTTPField(name: name, value: parts[1].trimmingCharacters(in: .whitespaces)))
                }
                return HTTPResponse(status: status, headerFields: fields)
            }
            return TransportResponse(deferredHead: head, body: Data(), info: TransferInfo())
        }
        let driver = Driver()
        let context = driver.context(1)
        driver.limiter.attemptDidEndSynchronously(
            .succeeded(request: Driver.request(), response: answer("Content-Type: text/plain\r\nServer: nginx\r\n")),
            context: context)
        #expect(parses.withLock { $0 } == 0)
        #expect(driver.status.pausedUntil == nil)

        driver.limiter.attemptDidEndSynchronously(
            .succeeded(
                request: Driver.request(),
                response: answer("Content-Type: text/plain\r\nx-ratelimit-remaining: 0\r\nX-RateLimit-Reset: 9\r\n")),
            context: driver.context(2))
        #expect(parses.withLock { $0 } == 1)
        #expect(driver.status.pausedUntil == .seconds(9))

        // `Retry-After` means nothing on a success (RFC 9110, 10.2.3): such a head is not parsed.
        let other = Driver()
        other.limiter.attemptDidEndSynchronously(
            .succeeded(request: Driver.request(), response: answer("Retry-After: 30\r\n")), context: other.context(1))
        #expect(parses.withLock { $0 } == 1)
        #expect(other.status.pausedUntil == nil)
    }

    @Test func aServerPauseIsCappedAtTheMaximum() async throws {
        var driver = Driver()
        try await driver.attempt(.tooManyRequests, fields: [("Retry-After", "86400")])
        #expect(driver.status.pausedUntil == .seconds(60))
    }

    @Test func malformedFieldsChangeNothing() async throws {
        var driver = Driver()
        try await driver.attempt(
            .ok,
            fields: [
                ("RateLimit", "remaining=0"), ("RateLimit-Policy", "\"x\";q=abc"), ("X-RateLimit-Remaining", "none"),
                ("Retry-After", "later"),
            ])
        #expect(driver.status.isLimiting == false)
        #expect(driver.status.pausedUntil == nil)
    }

    @Test func atMostTheConfiguredNumberOfBucketsAreKept() async throws {
        var driver = Driver(.init(maximumKeys: 2))
        for host in ["a.example.com", "b.example.com", "a.example.com", "c.example.com"] {
            try await driver.attempt(host: host)
        }
        #expect(Set(driver.limiter.keys) == ["a.example.com", "c.example.com"])
    }

    @Test func refusalsAreCounted() async throws {
        let metrics = TestMetrics()
        let limiter = AdaptiveRateLimitHandler(metricsFactory: metrics)
        let clock = TestClock()
        let context = AttemptContext(
            id: AttemptID(call: 1, attempt: 1), maxAttempts: 1, deadline: .seconds(5), method: .get, path: "/tasks",
            time: clock.timeSource)
        var request = Driver.request()
        limiter.attemptDidEndSynchronously(
            Driver.outcome(.tooManyRequests, [("Retry-After", "30")], request, context), context: context)
        await #expect(throws: RecoveryError.self) { try await limiter.prepare(&request, context: context) }
        let counter = try metrics.expectCounter("rebound_rate_limit_refusals_total", [("key", Self.host)])
        #expect(counter.totalValue == 1)
    }

    @Test func aLimitingBucketsRateIsAGaugeAndABucketThatNeverLimitedHasNone() async throws {
        let metrics = TestMetrics()
        var driver = Driver(metrics: metrics)
        try await driver.steady(20, every: .milliseconds(100))
        #expect(metrics.recorders(label: "rebound_rate_limit_tokens_per_second").isEmpty)
        try await driver.attempt(.tooManyRequests)
        let gauge = try metrics.expectGauge("rebound_rate_limit_tokens_per_second", [("key", Self.host)])
        #expect(gauge.lastValue == driver.status.rate)
        for _ in 0..<5 {
            driver.clock.advance(by: .milliseconds(100))
            driver.answer()
            #expect(gauge.lastValue == driver.status.rate)
        }
        // The throttle's cut, then CUBIC's growth, one value per answer.
        #expect(gauge.values.count == 6)
        #expect(zip(gauge.values, gauge.values.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func aForgottenBucketTakesItsGaugeSeriesWithIt() async throws {
        let metrics = TestMetrics()
        var driver = Driver(.init(maximumKeys: 2), metrics: metrics)
        try await driver.attempt(.tooManyRequests, host: "a.example.com")
        try await driver.attempt(.tooManyRequests, host: "b.example.com")
        #expect(metrics.recorders(label: "rebound_rate_limit_tokens_per_second").count == 2)
        try await driver.attempt(host: "c.example.com")
        #expect(Set(driver.limiter.keys) == ["b.example.com", "c.example.com"])
        #expect(throws: (any Error).self) {
            try metrics.expectGauge("rebound_rate_limit_tokens_per_second", [("key", "a.example.com")])
        }
        let kept = metrics.recorders(label: "rebound_rate_limit_tokens_per_second")
        #expect(kept.map { $0.dimensions.first?.1 } == ["b.example.com"])
    }

    @Test func aForgottenBucketTakesItsRefusalCounterWithIt() async throws {
        let metrics = TestMetrics()
        let limiter = AdaptiveRateLimitHandler(configuration: .init(maximumKeys: 1), metricsFactory: metrics)
        let context = AttemptContext(
            id: AttemptID(call: 1, attempt: 1), maxAttempts: 1, deadline: .seconds(5), method: .get, path: "/tasks",
            time: TestClock().timeSource)
        var request = Driver.request("a.example.com")
        limiter.attemptDidEndSynchronously(
            Driver.outcome(.tooManyRequests, [("Retry-After", "30")], request, context), context: context)
        await #expect(throws: RecoveryError.self) { try await limiter.prepare(&request, context: context) }
        let refusals = [("key", "a.example.com")]
        #expect(try metrics.expectCounter("rebound_rate_limit_refusals_total", refusals).totalValue == 1)

        // A bucket for another host takes the only place: the first is forgotten, with its series.
        var other = Driver.request("b.example.com")
        try await limiter.prepare(&other, context: context)
        #expect(limiter.keys == ["b.example.com"])
        #expect(throws: (any Error).self) { try metrics.expectCounter("rebound_rate_limit_refusals_total", refusals) }
    }

    @Test func outOfRangeSettingsAreBroughtIntoRange() {
        let configuration = AdaptiveRateLimitHandler.Configuration(
            beta: .nan, scaleConstant: -1, smoothing: 3, measuringInterval: .zero, minimumRate: 0,
            maximumRateScale: 0.1, maximumPause: .seconds(-5), maximumKeys: 0)
        #expect(configuration.beta == 0.7)
        #expect(configuration.scaleConstant == 0.4)
        #expect(configuration.smoothing == 1)
        #expect(configuration.measuringInterval == .milliseconds(1))
        #expect(configuration.minimumRate == 0.5)
        #expect(configuration.maximumRateScale == 1)
        #expect(configuration.maximumPause == .zero)
        #expect(configuration.maximumKeys == 1)
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
