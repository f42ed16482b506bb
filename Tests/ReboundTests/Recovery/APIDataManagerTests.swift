import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import MetricsTestKit
import Rebound
import ReboundTesting
import Testing
import Tracing

@Suite struct APIDataManagerTests {
    // MARK: - Success and classification

    @Test func aSuccessfulCallIsDecodedFromTheEndpointUnderTheBaseURL() async throws {
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(transport)
        let tasks = try await api.send(SampleEndpoints.listTasks)
        #expect(tasks == [TaskItem(id: 1, title: "Label the picture")])
        let sent = try #require(transport.requests.first)
        #expect(sent.request.scheme == "https")
        #expect(sent.request.authority == "api.example.com")
        #expect(sent.request.path == "/v1/tasks")
        #expect(sent.request.method == .get)
    }

    @Test func aBadBaseURLIsATypedError() {
        let error = #expect(throws: NetworkError.self) {
            try APIDataManager(baseURL: "ftp://example.com", transport: ScriptedTransport([]))
        }
        #expect(error?.code == .invalidURL)
    }

    @Test(arguments: [
        "https://user:secret-password@api.example.com/v1", "https://api.example.com/v1?key=secret-key",
        "https://api.example.com/v1#part", "https://api.example.com/v1?",
    ])
    func aBaseURLWhosePartsNoRequestWouldSendIsRefusedWithoutQuotingIt(baseURL: String) {
        let error = #expect(throws: NetworkError.self) {
            try APIDataManager(baseURL: baseURL, transport: ScriptedTransport([]))
        }
        #expect(error?.code == .invalidURL)
        #expect(error.map { "\($0)".contains("secret") } == false)
        #expect(error?.reason?.contains("user information, a query or a fragment") == true)
    }

    @Test func aStatusWithoutPayloadBecomesAnHTTPErrorUnderTheEndpointsCode() async throws {
        let api = try makeManager(ScriptedTransport([.status(.notFound)]), handlers: [temporaryHandler()])
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-HT404")
        #expect(error?.attachment(AttemptHistory.self)?.attempts.count == 1)
    }

    @Test func theBackendsErrorPayloadIsReadIntoTheChain() async throws {
        let payload =
            #"{"code":"validation_failure","reason":"value_out_of_bounds","message":"Price must be at most 100.","field":"price"}"#
        let api = try makeManager(ScriptedTransport([.json(payload, status: .badRequest)]))
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-BE30-HT400")
        #expect(
            error?.chain.full
                == "APIError.listTasksFailed - BackendError.validationFailure(ValidationError.valueOutOfBounds) - HTTPError.no400BadRequest"
        )
    }

    @Test func anUndecodableBodyFailsWithTheJSONLayer() async throws {
        let api = try makeManager(ScriptedTransport([.json(#"[{"id":1}]"#), .json("not json")]))
        let missing = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(missing?.chain.short == "AP8-JS3-DE3")
        let garbage = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(garbage?.chain.short.hasPrefix("AP8-JS5") == true)
    }

    // MARK: - Recovery

    @Test func aTemporaryFailureIsRetriedAfterTheBackoffAndSucceeds() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([.status(.serviceUnavailable), .fail(NetworkError(.connectionReset)), .tasks])
        let api = try makeManager(transport, handlers: [temporaryHandler()], clock: clock)
        let tasks = try await api.send(SampleEndpoints.listTasks)
        #expect(tasks.count == 1)
        #expect(transport.requests.count == 3)
        #expect(clock.sleeps == [.milliseconds(200), .milliseconds(400)])
    }

    @Test func retriesStopAtTheMaximumAttemptsAndSaySo() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport(Array(repeating: .status(.serviceUnavailable), count: 10))
        let api = try makeManager(
            transport, handlers: [temporaryHandler()], limits: RequestLimits(maxAttempts: 3), clock: clock)
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE1-HT503")
        #expect(transport.requests.count == 3)
        let history = try #require(error?.attachment(AttemptHistory.self))
        #expect(history.attempts.map(\.number) == [1, 2, 3])
        #expect(history.attempts.map(\.status) == [503, 503, 503])
        #expect(
            history.attempts.map(\.handler) == ["BackendTemporaryErrorHandler", "BackendTemporaryErrorHandler", nil])
        #expect(history.attempts.map(\.delayBefore) == [.zero, .milliseconds(200), .milliseconds(400)])
        #expect(error?.context["attempts"]?.revealed == "3")
        #expect(error?.context["endpoint"]?.revealed == "GET /tasks")
    }

    @Test func aDifferentLastFailureIsReportedAsItselfNotAsExhaustedRetries() async throws {
        let transport = ScriptedTransport([.status(.serviceUnavailable), .status(.notFound)])
        let api = try makeManager(transport, handlers: [temporaryHandler()], limits: RequestLimits(maxAttempts: 2))
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-HT404")
    }

    @Test func zeroMaximumAttemptsMeansOneAttemptNotACrash() async throws {
        var limits = RequestLimits()
        limits.maxAttempts = 0
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let error = await #expect(throws: APIError.self) {
            try await makeManager(transport, handlers: [temporaryHandler()], limits: limits).send(
                SampleEndpoints.listTasks)
        }
        #expect(error?.chain.short == "AP8-HT503")
        #expect(transport.requests.count == 1)
    }

    @Test func aCaptchaSentWith429IsLeftToTheCaptchaHandler() async throws {
        let payload = #"{"code":"captcha_required","message":"Solve it.","captcha":{"id":"c1","question":"2+2?"}}"#
        let solved = Locked(0)
        let captcha = CaptchaRequiredHandler(
            solve: { _ in
                solved.withLock { $0 += 1 }; return "4"
            }, verify: { _, _ in })
        let transport = ScriptedTransport([.json(payload, status: .tooManyRequests), .tasks])
        // The solve suspends, and so is raced against the deadline: on a manual clock that nobody
        // advances, the deadline never comes.
        let api = try makeManager(transport, handlers: [temporaryHandler(), captcha], clock: TestClock(mode: .manual))
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(solved.withLock { $0 } == 1)
    }

    @Test func retryAfterIsHonouredInBothForms() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([
            .status(.serviceUnavailable, retryAfter: "3"),
            // 8 s after the clock's start date: the first wait moved the date by 3 s, 5 s are left.
            .status(.tooManyRequests, retryAfter: "Tue, 14 Nov 2023 22:13:28 GMT"),
            .tasks,
        ])
        let api = try makeManager(transport, handlers: [temporaryHandler()], clock: clock)
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(clock.sleeps == [.seconds(3), .seconds(5)])
    }

    @Test func aRetryAfterBeyondTheDeadlineFailsAtOnceWithoutSleeping() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([.status(.serviceUnavailable, retryAfter: "30"), .tasks])
        let api = try makeManager(
            transport,
            handlers: [temporaryHandler()],
            limits: RequestLimits(deadline: .seconds(10)),
            clock: clock
        )
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE3-HT503")
        #expect(clock.sleeps.isEmpty)
        #expect(transport.requests.count == 1)
    }

    @Test func aBackoffLongerThanTheTimeLeftEndsWithDeadlineExceeded() async throws {
        let clock = TestClock()
        let slow = BackendTemporaryErrorHandler(
            configuration: .init(backoff: Backoff(base: .seconds(8), multiplier: 2, cap: .seconds(60), jitter: .none)),
            random: SeededRandom(seed: 1)
        )
        let transport = ScriptedTransport(Array(repeating: .status(.badGateway), count: 5))
        let api = try makeManager(
            transport, handlers: [slow], limits: RequestLimits(deadline: .seconds(20)), clock: clock)
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        // 8 s fits in 20 s; the next wait, 16 s, does not fit in the 12 s left.
        #expect(error?.chain.short == "AP8-RE2-HT502")
        #expect(clock.sleeps == [.seconds(8)])
        #expect(transport.requests.count == 2)
    }

    @Test func eachAttemptGetsTheAttemptTimeoutShortenedToTheTimeLeft() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([.status(.serviceUnavailable, retryAfter: "4"), .tasks])
        let api = try makeManager(
            transport,
            handlers: [temporaryHandler()],
            limits: RequestLimits(deadline: .seconds(6), attemptTimeout: .seconds(5)),
            clock: clock
        )
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(transport.requests.map(\.options.timeout) == [.seconds(5), .seconds(2)])
    }

    @Test func timeSpentPreparingShortensTheFirstAttemptsTimeout() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(
            transport,
            handlers: [
                SlowPreparingHandler(clock: clock, takes: .seconds(4)), temporaryHandler(addsIdempotencyKey: true),
            ],
            limits: RequestLimits(deadline: .seconds(6), attemptTimeout: .seconds(5)),
            clock: clock
        )
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(transport.requests.map(\.options.timeout) == [.seconds(2)])
    }

    @Test func aPrepareThatOutlastsTheDeadlineEndsTheCallBeforeItsFirstAttempt() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport([.tasks])
        let api = try makeManager(
            transport,
            handlers: [SlowPreparingHandler(clock: clock, takes: .seconds(7))],
            limits: RequestLimits(deadline: .seconds(6)),
            clock: clock
        )
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-RE2")
        #expect(transport.requests.isEmpty)
    }

    @Test func aNonIdempotentRequestIsRetriedOnlyWithAnIdempotencyKey() async throws {
        let plain = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let plainAPI = try makeManager(plain, handlers: [temporaryHandler()])
        let error = await #expect(throws: APIError.self) { try await plainAPI.send(SampleEndpoints.token) }
        #expect(error?.chain.short == "AP7-HT503")
        #expect(plain.requests.count == 1)

        var keyed = SampleEndpoints.token
        keyed.headerFields[BackendTemporaryErrorHandler.idempotencyKey] = "key-1"
        let withKey = ScriptedTransport([.status(.serviceUnavailable), .json(#"{"id":2,"title":"t"}"#)])
        _ = try await makeManager(withKey, handlers: [temporaryHandler()]).send(keyed)
        #expect(withKey.requests.count == 2)
    }

    @Test func aGeneratedIdempotencyKeyIsTheSameOnEveryAttempt() async throws {
        let transport = ScriptedTransport([.status(.badGateway), .json(#"{"id":2,"title":"t"}"#)])
        let api = try makeManager(transport, handlers: [temporaryHandler(addsIdempotencyKey: true)])
        _ = try await api.send(SampleEndpoints.token)
        let keys = transport.requests.map { $0.request.headerFields[BackendTemporaryErrorHandler.idempotencyKey] }
        #expect(keys.count == 2)
        #expect(keys[0] != nil)
        #expect(keys[0] == keys[1])
        #expect(keys[0]?.count == 36)
    }

    @Test func eachCallToOneEndpointStartsFromARequestNoHandlerHasPrepared() async throws {
        let transport = ScriptedTransport(Array(repeating: .json(#"{"id":2,"title":"t"}"#), count: 3))
        let store = InMemoryCredentialStore(Credential(accessToken: "first"))
        let api = try makeManager(
            transport,
            handlers: [
                temporaryHandler(addsIdempotencyKey: true),
                AuthRefreshHandler(store: store) { _ in Credential(accessToken: "refreshed") },
            ]
        )
        _ = try await api.send(SampleEndpoints.token)
        _ = try await api.send(SampleEndpoints.token)
        await store.replace(with: Credential(accessToken: "second"))
        _ = try await api.send(SampleEndpoints.token)
        let requests = transport.requests.map(\.request)
        let keys = requests.compactMap { $0.headerFields[BackendTemporaryErrorHandler.idempotencyKey] }
        #expect(keys.count == 3)
        #expect(Set(keys).count == 3)
        #expect(requests.map { $0.headerFields[.authorization] } == ["Bearer first", "Bearer first", "Bearer second"])
        #expect(requests.allSatisfy { $0.method == .post && $0.path == "/v1/token" })
    }

    @Test func callsToDifferentEndpointsEachGetTheirOwnRequest() async throws {
        let transport = ScriptedTransport(Array(repeating: .json(#"[]"#), count: 6))
        let api = try makeManager(transport)
        let withField = Endpoint<[TaskItem], APIErrorCode>(
            .get, "/tasks", headerFields: [.accept: "application/json"], errorCode: .listTasksFailed)
        let page = Endpoint<[TaskItem], APIErrorCode>(.get, "/tasks?page=2", errorCode: .listTasksFailed)
        let deleting = Endpoint<[TaskItem], APIErrorCode>(.delete, "/tasks", errorCode: .listTasksFailed)
        for endpoint in [
            SampleEndpoints.listTasks, page, SampleEndpoints.listTasks, withField, deleting, SampleEndpoints.listTasks,
        ] {
            _ = try await api.send(endpoint)
        }
        let requests = transport.requests.map(\.request)
        #expect(
            requests.map { "\($0.method) \($0.path ?? "")" } == [
                "GET /v1/tasks", "GET /v1/tasks?page=2", "GET /v1/tasks", "GET /v1/tasks", "DELETE /v1/tasks",
                "GET /v1/tasks",
            ])
        #expect(requests.map { $0.headerFields[.accept] } == [nil, nil, nil, "application/json", nil, nil])
        #expect(requests.allSatisfy { $0.scheme == "https" && $0.authority == "api.example.com" })
    }

    @Test func anExhaustedRetryBudgetStopsRetrying() async throws {
        let budget = RetryBudget(maxTokens: 4, tokenRatio: 0.1)
        let transport = ScriptedTransport(Array(repeating: .status(.serviceUnavailable), count: 20))
        let api = try makeManager(
            transport, handlers: [temporaryHandler(budget: budget)], limits: RequestLimits(maxAttempts: 10))
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        // 4 tokens: the first failure leaves 3 (> 2, retry), the second 2 (not > 2, refused).
        #expect(error?.chain.short == "AP8-RE4-HT503")
        #expect(transport.requests.count == 2)
    }

    @Test func theFirstHandlerThatDidHandleWinsAndLaterOnesAreNotAsked() async throws {
        let first = ProbeHandler("first") { _ in .cannotHandle }
        let second = ProbeHandler("second") { _ in .retryNow }
        let third = ProbeHandler("third") { _ in .retryNow }
        let transport = ScriptedTransport([.status(.internalServerError), .tasks])
        let api = try makeManager(transport, handlers: [first, second, third])
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(first.attemptsAsked == [1])
        #expect(second.attemptsAsked == [1])
        #expect(third.attemptsAsked.isEmpty)
    }

    @Test func aHandlersOwnFailureEndsTheRequestAndJoinsTheChain() async throws {
        struct SolverCrashed: Error {}
        let failing = ProbeHandler("failing") { _ in throw SolverCrashed() }
        let layered = ProbeHandler("layered") { failure in throw RecoveryError(.refreshFailed, cause: failure.error) }
        let first = try makeManager(ScriptedTransport([.status(.unauthorized)]), handlers: [failing])
        let foreign = await #expect(throws: APIError.self) { try await first.send(SampleEndpoints.listTasks) }
        #expect(foreign?.chain.short == "AP8-RE30-XX0")
        let second = try makeManager(ScriptedTransport([.status(.unauthorized)]), handlers: [layered])
        let own = await #expect(throws: APIError.self) { try await second.send(SampleEndpoints.listTasks) }
        #expect(own?.chain.short == "AP8-RE10-HT401")
    }

    @Test func anAdjustedRequestReplacesTheFailedOne() async throws {
        let adjusting = ProbeHandler("adjusting") { failure in
            var request = failure.request
            request.headerFields[HTTPField.Name("X-Second-Try")!] = "yes"
            return .retry(after: .zero, with: request)
        }
        let transport = ScriptedTransport([.status(.conflict), .tasks])
        _ = try await makeManager(transport, handlers: [adjusting]).send(SampleEndpoints.listTasks)
        #expect(transport.requests.map { $0.request.headerFields[HTTPField.Name("X-Second-Try")!] } == [nil, "yes"])
    }

    // MARK: - Cancellation

    @Test func aCancelledTaskStopsInTheMiddleOfABackoffWait() async throws {
        let clock = TestClock(mode: .manual)
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try makeManager(transport, handlers: [temporaryHandler()], clock: clock)
        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        for _ in 0..<10_000 where clock.sleeperCount == 0 { await Task.yield() }
        #expect(clock.sleeperCount == 1)
        call.cancel()
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE40-HT503")
        #expect(transport.requests.count == 1)
    }

    @Test func aTaskCancelledWhileItsHandlersDecideEndsWithTheFailureItWasRecoveringFrom() async throws {
        // The handler cancels the calling task (hooks run in tasks of their own).
        let call = Locked<Task<[TaskItem], any Error>?>(nil)
        let cancelling = ProbeHandler("cancelling") { _ in
            call.withLock { $0?.cancel() }
            return .retryNow
        }
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let api = try makeManager(transport, handlers: [cancelling])
        let started = Gate()
        let task = Task {
            await started.wait()
            return try await api.send(SampleEndpoints.listTasks)
        }
        call.withLock { $0 = task }
        started.open()
        let error = await #expect(throws: APIError.self) { try await task.value }
        #expect(error?.chain.short == "AP8-RE40-HT503")
        #expect(transport.requests.count == 1)
    }

    @Test func aCancelledTaskStopsTheTransferInFlight() async throws {
        let transport = ScriptedTransport([.waitForCancellation, .tasks])
        let api = try makeManager(transport, handlers: [temporaryHandler()])
        let call = Task { try await api.send(SampleEndpoints.listTasks) }
        for _ in 0..<10_000 where transport.requests.isEmpty { await Task.yield() }
        call.cancel()
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-NE14")
        #expect(transport.requests.count == 1)
    }

    // MARK: - Observability

    @Test func everyAttemptIsLoggedWithItsChainHandlerAndDelayAndNoSecret() async throws {
        let recorder = RecordingLogHandler()
        let logger = Logger(label: "test", factory: { _ in recorder })
        var endpoint = SampleEndpoints.listTasks
        endpoint.headerFields[.authorization] = "Bearer top-secret-token"
        endpoint.path = "/tasks?session=secret-session"
        let transport = ScriptedTransport([.status(.serviceUnavailable), .status(.notFound)])
        let api = try makeManager(transport, handlers: [temporaryHandler()], logger: logger)
        _ = await #expect(throws: APIError.self) { try await api.send(endpoint) }
        let lines = recorder.rendered
        #expect(lines.count == 3)
        #expect(lines[0].contains("attempt=1"))
        #expect(lines[0].contains("chain=HT503"))
        #expect(lines[0].contains("handler=BackendTemporaryErrorHandler"))
        #expect(lines[0].contains("delay=0.200 s"))
        #expect(lines[1].contains("chain=HT404"))
        #expect(lines[2].contains("chain=AP8-HT404"))
        for line in lines {
            #expect(!line.contains("top-secret"))
            #expect(!line.contains("secret-session"))
        }
    }

    @Test func metricsCountAttemptsRecoveriesAndFailuresByChain() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks, .status(.notFound)])
        let api = try APIDataManager(
            baseURL: "https://api.example.com",
            transport: transport,
            handlers: [temporaryHandler()],
            time: TestClock().timeSource,
            metricsFactory: metrics
        )
        _ = try await api.send(SampleEndpoints.listTasks)
        _ = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        let failed = try metrics.expectCounter(
            "rebound_attempts_total",
            [("endpoint", "listTasksFailed"), ("outcome", "failure")]
        )
        #expect(failed.totalValue == 2)
        let succeeded = try metrics.expectCounter(
            "rebound_attempts_total",
            [("endpoint", "listTasksFailed"), ("outcome", "success")]
        )
        #expect(succeeded.totalValue == 1)
        #expect(
            try metrics.expectCounter("rebound_recoveries_total", [("handler", "BackendTemporaryErrorHandler")])
                .totalValue == 1)
        #expect(try metrics.expectCounter("rebound_failures_total", [("chain", "AP8-HT404")]).totalValue == 1)
    }

    @Test func aCallIsOneInternalSpanWithAnEventPerAttempt() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport([.status(.badGateway), .tasks])
        let api = try APIDataManager(
            baseURL: "https://api.example.com",
            transport: transport,
            handlers: [temporaryHandler()],
            time: TestClock().timeSource,
            tracer: tracer
        )
        _ = try await api.send(SampleEndpoints.listTasks)
        let span = try #require(tracer.finishedSpans.first { $0.kind == .internal })
        #expect(tracer.finishedSpans.count(where: { $0.kind == .internal }) == 1)
        #expect(span.operationName == "GET /tasks")
        #expect(span.events.map(\.name) == ["attempt", "attempt"])
        #expect(span.events.first?.attributes["rebound.chain"]?.toSpanAttribute() == "HT502")
    }

    // MARK: - Isolation

    @Test func theHandlersRunOffTheCallersActorWhileTheirHooksRunOnThePipelinesExecutor() async throws {
        let probe = IsolationProbe()
        let api = try makeManager(
            ScriptedTransport([.status(.badGateway), .tasks]), handlers: [probe, temporaryHandler()])
        let caller = CallingActor()
        try await caller.send(SampleEndpoints.listTasks, through: api)
        // `prepare` and `attemptDidSucceed` are `nonisolated(nonsending)`: they run wherever the
        // pipeline runs. The pipeline itself must not run on the caller's actor (decoding and
        // bookkeeping would then block it), so they see no actor at all.
        #expect(probe.isolations == ["prepare: none", "prepare: none", "attemptDidSucceed: none"])
    }
}

/// Calls the data manager from an actor, as an app's view model would.
private actor CallingActor {
    func send(_ endpoint: Endpoint<[TaskItem], APIErrorCode>, through api: APIDataManager) async throws {
        _ = try await api.send(endpoint)
    }
}

/// Records which actor, if any, each hook ran on.
private final class IsolationProbe: RecoverableErrorHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    var isolations: [String] { lock.withLock { recorded } }

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    nonisolated(nonsending) func prepare(_ request: inout HTTPRequest) async throws {
        record("prepare", #isolation)
    }

    nonisolated(nonsending) func attemptDidSucceed(_ request: HTTPRequest) async {
        record("attemptDidSucceed", #isolation)
    }

    private func record(_ hook: String, _ isolation: (any Actor)?) {
        let name = isolation.map { String(describing: type(of: $0)) } ?? "none"
        lock.withLock { recorded.append("\(hook): \(name)") }
    }
}
