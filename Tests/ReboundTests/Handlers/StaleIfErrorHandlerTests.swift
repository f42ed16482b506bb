import Foundation
import HTTPTypes
import Logging
import MetricsTestKit
import Rebound
import ReboundTesting
import Testing

/// Stale-if-error through the pipeline, over a scripted transport and a test clock: which calls
/// get the last good answer, how old it may be, and whose it is.
@Suite struct StaleIfErrorHandlerTests {
    /// The sample list, opted in to answers up to a minute old.
    static let list = SampleEndpoints.listTasks.staleIfError(upTo: .seconds(60))
    static let tasks = [TaskItem(id: 1, title: "Label the picture")]

    /// A pipeline with the handler (and `before` it), one attempt per call unless told otherwise.
    struct Fixture: Sendable {
        let clock = TestClock()
        let transport = ScriptedTransport([])
        let stale: StaleIfErrorHandler
        let api: APIDataManager

        init(
            _ configuration: StaleIfErrorHandler.Configuration = .default,
            scope: (@Sendable () -> String?)? = nil,
            before: [any RecoverableErrorHandler] = [],
            after: [any RecoverableErrorHandler] = [],
            limits: RequestLimits = RequestLimits(maxAttempts: 1),
            logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            metrics: TestMetrics? = nil
        ) throws {
            stale = StaleIfErrorHandler(configuration: configuration, scope: scope)
            api = try APIDataManager(
                baseURL: "https://api.example.com/v1", transport: transport, handlers: before + [stale] + after,
                limits: limits, time: clock.timeSource, logger: logger, metricsFactory: metrics)
        }

        /// One call answered `step`: its value, or the short chain it failed with.
        func call<Response>(
            _ endpoint: Endpoint<Response, APIErrorCode>, _ step: ScriptedTransport.Step
        ) async -> Result<APIResponse<Response>, APIError> {
            transport.append(step)
            do {
                return .success(try await api.response(for: endpoint))
            } catch {
                return .failure(error)
            }
        }

        /// The short chain of a failed call, or `fresh` / `stale N s` for an answered one.
        func outcome<Response>(_ endpoint: Endpoint<Response, APIErrorCode>, _ step: ScriptedTransport.Step) async
            -> String
        {
            switch await call(endpoint, step) {
            case .success(let answer):
                guard let staleness = answer.staleness else { return "fresh" }
                return "stale \(staleness.age.components.seconds) s"
            case .failure(let error):
                return error.chain.short
            }
        }
    }

    @Test func aFailedGETIsAnsweredWithTheLastGoodAnswerMarkedStaleWithItsAge() async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        fixture.clock.advance(by: .seconds(30))
        let answer = try await fixture.call(Self.list, .status(.serviceUnavailable)).get()
        #expect(answer.value == Self.tasks)
        let staleness = try #require(answer.staleness)
        #expect(staleness.age == .seconds(30))
        #expect(staleness.handler == "StaleIfErrorHandler")
        #expect(staleness.failure.shortChain == "HT503")
        #expect(answer.response.status == .ok)
        // The history is the call's own: the attempt that failed.
        #expect(answer.history.summary == "#1 HT503")
        // `send` gives the value as it gives a fresh one.
        fixture.transport.append(.fail(NetworkError(.cannotConnect)))
        #expect(try await fixture.api.send(Self.list) == Self.tasks)
    }

    @Test(arguments: [
        ScriptedTransport.Step.status(.internalServerError), .status(.badGateway), .status(.gatewayTimeout),
        .fail(NetworkError(.timeout)), .fail(NetworkError(.connectionReset)), .fail(NetworkError(.cannotConnect)),
    ])
    func networkFailuresAndFiveHundredToFiveHundredFourAreAnswered(failure: ScriptedTransport.Step) async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        #expect(await fixture.outcome(Self.list, failure) == "stale 0 s")
    }

    @Test func otherFailuresKeepTheirChain() async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        #expect(await fixture.outcome(Self.list, .status(.notFound)) == "AP8-HT404")
        #expect(await fixture.outcome(Self.list, .status(.unauthorized)) == "AP8-HT401")
        #expect(await fixture.outcome(Self.list, .status(.tooManyRequests)) == "AP8-HT429")
        #expect(await fixture.outcome(Self.list, .json("not json")).hasPrefix("AP8-JS5"))
        #expect(await fixture.outcome(Self.list, .fail(NetworkError(.tlsFailure))).hasPrefix("AP8-NE"))
        // The answer kept is still there for a failure it may stand in for.
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "stale 0 s")
    }

    @Test func retriesComeFirstAndTheStaleAnswerStandsInForTheExhaustedChain() async throws {
        let fixture = try Fixture(after: [temporaryHandler()], limits: RequestLimits(maxAttempts: 3))
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        fixture.transport.append(.status(.serviceUnavailable), .status(.serviceUnavailable))
        let answer = try await fixture.call(Self.list, .status(.serviceUnavailable)).get()
        #expect(answer.staleness?.failure.shortChain == "RE1-HT503")
        #expect(answer.history.attempts.count == 3)
        #expect(fixture.transport.requests.count == 4)
    }

    @Test func anEndpointThatDidNotOptInFailsWithItsChainAndKeepsNothing() async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(SampleEndpoints.listTasks, .tasks) == "fresh")
        #expect(fixture.stale.count == 0)
        #expect(await fixture.outcome(SampleEndpoints.listTasks, .status(.serviceUnavailable)) == "AP8-HT503")
        // Opted in, on the same URL: nothing was kept for it.
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
    }

    @Test func aPOSTIsNeverKeptNorAnswered() async throws {
        let fixture = try Fixture()
        let post = Endpoint<[TaskItem], APIErrorCode>(
            .post, "/tasks", body: Data("{}".utf8), errorCode: .listTasksFailed
        ).staleIfError(upTo: .seconds(60))
        #expect(await fixture.outcome(post, .tasks) == "fresh")
        #expect(fixture.stale.count == 0)
        // Even with a GET's answer kept for the same URL.
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        #expect(await fixture.outcome(post, .status(.serviceUnavailable)) == "AP8-HT503")
    }

    @Test func anAnswerOlderThanTheEndpointAllowsIsNotGiven() async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        fixture.clock.advance(by: .seconds(60))
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "stale 60 s")
        fixture.clock.advance(by: .milliseconds(1))
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
        // An endpoint that allows more still gets it.
        let patient = SampleEndpoints.listTasks.staleIfError(upTo: .seconds(3600))
        #expect(await fixture.outcome(patient, .status(.serviceUnavailable)) == "stale 60 s")
    }

    @Test func eachURLHasItsOwnAnswerQueryIncluded() async throws {
        let fixture = try Fixture()
        let first = Endpoint<[TaskItem], APIErrorCode>
            .get("/tasks", query: ["page": "1"], returning: [TaskItem].self, errorCode: .listTasksFailed)
            .staleIfError(upTo: .seconds(60))
        let second = Endpoint<[TaskItem], APIErrorCode>
            .get("/tasks", query: ["page": "2"], returning: [TaskItem].self, errorCode: .listTasksFailed)
            .staleIfError(upTo: .seconds(60))
        #expect(await fixture.outcome(first, .tasks) == "fresh")
        #expect(await fixture.outcome(second, .status(.serviceUnavailable)) == "AP8-HT503")
        #expect(await fixture.outcome(first, .status(.serviceUnavailable)) == "stale 0 s")
    }

    @Test func aLaterAnswerReplacesTheEarlierOne() async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        fixture.clock.advance(by: .seconds(20))
        #expect(await fixture.outcome(Self.list, .json(#"[]"#)) == "fresh")
        fixture.clock.advance(by: .seconds(5))
        let answer = try await fixture.call(Self.list, .status(.serviceUnavailable)).get()
        #expect(answer.value.isEmpty)
        #expect(answer.staleness?.age == .seconds(5))
        #expect(fixture.stale.count == 1)
    }

    // MARK: - Credentials and scope

    @Test func withoutAScopeAnswersToRequestsWithCredentialsAreNeverKept() async throws {
        for field in [HTTPField.Name.authorization, .cookie, .proxyAuthorization] {
            let fixture = try Fixture(after: [SetsField(name: field, value: "secret-credential")])
            #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
            #expect(fixture.stale.count == 0)
            #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
        }
        // The endpoint's own header fields count too.
        let fixture = try Fixture()
        var signed = Self.list
        signed.headerFields[.authorization] = "Bearer secret"
        #expect(await fixture.outcome(signed, .tasks) == "fresh")
        #expect(fixture.stale.count == 0)
    }

    @Test func withAScopeEachIdentityGetsOnlyItsOwnAnswers() async throws {
        let user = Locked<String?>("alice")
        let fixture = try Fixture(
            scope: { user.withLock { $0 } }, after: [SetsField(name: .authorization, value: "Bearer token")])
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        #expect(fixture.stale.count == 1)
        user.withLock { $0 = "bob" }
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
        user.withLock { $0 = nil }
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
        user.withLock { $0 = "alice" }
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "stale 0 s")
        // Signing out forgets them.
        fixture.stale.removeAll(inScope: "alice")
        #expect(fixture.stale.count == 0)
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
    }

    @Test func anAnswerIsKeptUnderTheIdentityItWasRequestedWith() async throws {
        // The identity changes while the request is in flight (a sign-out, another sign-in):
        // the answer is alice's, whoever is signed in when it arrives.
        let user = Locked<String?>("alice")
        let fixture = try Fixture(scope: { user.withLock { $0 } })
        #expect(
            await fixture.outcome(
                Self.list,
                .reply { _, _ in
                    user.withLock { $0 = "bob" }
                    return TransportResponse(
                        head: HTTPResponse(status: .ok), body: Data(#"[{"id":1,"title":"Label the picture"}]"#.utf8))
                }) == "fresh")
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
        user.withLock { $0 = "alice" }
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "stale 0 s")
    }

    @Test(arguments: ["no-store", "private", "max-age=60, Private=\"Set-Cookie\"", "NO-STORE"])
    func answersTheServerMarkedNotToKeepAreNotKeptWithoutAScope(cacheControl: String) async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        let marked = ScriptedTransport.Step.json(
            #"[{"id":2,"title":"Marked"}]"#, headers: [.cacheControl: cacheControl])
        #expect(await fixture.outcome(Self.list, marked) == "fresh")
        // Not kept, and the earlier answer is forgotten: it is older than one already seen.
        #expect(fixture.stale.count == 0)
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "AP8-HT503")
    }

    @Test func aPrivateAnswerIsKeptInAScopeButNoStoreNever() async throws {
        let fixture = try Fixture(scope: { "alice" })
        let privately = ScriptedTransport.Step.json(
            #"[{"id":1,"title":"Label the picture"}]"#, headers: [.cacheControl: "private, max-age=0"])
        #expect(await fixture.outcome(Self.list, privately) == "fresh")
        #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "stale 0 s")
        let never = ScriptedTransport.Step.json("[]", headers: [.cacheControl: "no-store"])
        #expect(await fixture.outcome(Self.list, never) == "fresh")
        #expect(fixture.stale.count == 0)
    }

    // MARK: - Bounds

    @Test func theLeastRecentlyUsedAnswerIsForgottenFirst() async throws {
        let fixture = try Fixture(.init(maximumEntries: 2))
        let a = Self.endpoint("/a")
        let b = Self.endpoint("/b")
        let c = Self.endpoint("/c")
        #expect(await fixture.outcome(a, .tasks) == "fresh")
        #expect(await fixture.outcome(b, .tasks) == "fresh")
        // Giving /a's answer uses it: /b is now the least recently used.
        #expect(await fixture.outcome(a, .status(.serviceUnavailable)) == "stale 0 s")
        #expect(await fixture.outcome(c, .tasks) == "fresh")
        #expect(fixture.stale.count == 2)
        #expect(await fixture.outcome(b, .status(.serviceUnavailable)) == "AP8-HT503")
        #expect(await fixture.outcome(a, .status(.serviceUnavailable)) == "stale 0 s")
        #expect(await fixture.outcome(c, .status(.serviceUnavailable)) == "stale 0 s")
    }

    @Test func theAnswersStayWithinTheirBytesAndALargeOneIsNotKept() async throws {
        let body = #"[{"id":1,"title":"Label the picture"}]"#
        let fixture = try Fixture(.init(maximumBytes: 300, maximumAnswerBytes: 100))
        for path in ["/a", "/b", "/c", "/d", "/e"] {
            #expect(await fixture.outcome(Self.endpoint(path), .json(body)) == "fresh")
            #expect(fixture.stale.bytes <= 300)
        }
        #expect(fixture.stale.count < 5)
        #expect(await fixture.outcome(Self.endpoint("/e"), .status(.serviceUnavailable)) == "stale 0 s")
        // An answer over the largest kept is not kept, and the one before it is forgotten.
        let large =
            "[" + Array(repeating: #"{"id":1,"title":"Label the picture"}"#, count: 3).joined(separator: ",")
            + "]"
        #expect(await fixture.outcome(Self.endpoint("/e"), .json(large)) == "fresh")
        #expect(await fixture.outcome(Self.endpoint("/e"), .status(.serviceUnavailable)) == "AP8-HT503")
    }

    // MARK: - The pipeline around it

    @Test func aCircuitOpenRefusalIsAnsweredUnlessConfiguredOtherwise() async throws {
        for serves in [true, false] {
            let breaker = CircuitBreakerHandler(
                configuration: .init(windowSize: 1, minimumAttempts: 1, breakJitter: 0))
            let fixture = try Fixture(.init(servesWhileCircuitOpen: serves), before: [breaker])
            #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
            #expect(await fixture.outcome(Self.list, .status(.serviceUnavailable)) == "stale 0 s")
            let sent = fixture.transport.requests.count
            let refused = await fixture.call(Self.list, .tasks)
            #expect(fixture.transport.requests.count == sent)
            switch refused {
            case .success(let answer): #expect(serves && answer.staleness?.failure.shortChain == "RE50")
            case .failure(let error): #expect(!serves && error.chain.short == "AP8-RE50")
            }
        }
    }

    @Test func aCancelledCallIsNotAnswered() async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        fixture.transport.append(.waitForCancellation)
        let call = Task { try await fixture.api.send(Self.list) }
        for _ in 0..<10_000 where fixture.transport.requests.count < 2 { await Task.yield() }
        call.cancel()
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-NE14")
    }

    @Test func aCallCancelledWhileWaitingToRetryAFiveHundredThreeIsNotAnswered() async throws {
        let clock = TestClock(mode: .manual)
        let transport = ScriptedTransport([.tasks, .status(.serviceUnavailable)])
        let api = try makeManager(
            transport, handlers: [StaleIfErrorHandler(), temporaryHandler()], limits: RequestLimits(maxAttempts: 3),
            clock: clock)
        #expect(try await api.send(Self.list) == Self.tasks)
        let call = Task { try await api.send(Self.list) }
        for _ in 0..<10_000 where clock.sleeperCount == 0 { await Task.yield() }
        call.cancel()
        let error = await #expect(throws: APIError.self) { try await call.value }
        #expect(error?.chain.short == "AP8-RE40-HT503")
    }

    @Test func theFirstHandlerWithAnAnswerGivesItAndOneThatDoesNotDecodeLeavesTheFailure() async throws {
        let fixture = try Fixture(
            before: [Answers(name: "NoAnswer", body: nil), Answers(name: "First", body: "[]")],
            after: [Answers(name: "Second", body: #"[{"id":2,"title":"Other"}]"#)])
        let answer = try await fixture.call(SampleEndpoints.listTasks, .status(.notFound)).get()
        #expect(answer.staleness?.handler == "First")
        #expect(answer.staleness?.age == .seconds(7))
        #expect(answer.value.isEmpty)
        let broken = try Fixture(before: [Answers(name: "Broken", body: "not json")])
        #expect(await broken.outcome(SampleEndpoints.listTasks, .status(.notFound)) == "AP8-HT404")
    }

    @Test func anEndpointSkippingTheHandlerIsNotAnswered() async throws {
        let fixture = try Fixture()
        #expect(await fixture.outcome(Self.list, .tasks) == "fresh")
        let skipping = Self.list.skipping(.type(StaleIfErrorHandler.self))
        #expect(await fixture.outcome(skipping, .status(.serviceUnavailable)) == "AP8-HT503")
    }

    @Test func aStaleAnswerIsLoggedWithItsChainAndAgeWithoutTheQueryAndCounted() async throws {
        let recorder = RecordingLogHandler()
        let metrics = TestMetrics()
        let fixture = try Fixture(logger: Logger(label: "test", factory: { _ in recorder }), metrics: metrics)
        let secret = Endpoint<[TaskItem], APIErrorCode>
            .get("/tasks", query: ["token": "secret-token"], returning: [TaskItem].self, errorCode: .listTasksFailed)
            .staleIfError(upTo: .seconds(60))
        #expect(await fixture.outcome(secret, .tasks) == "fresh")
        fixture.clock.advance(by: .milliseconds(2_500))
        #expect(await fixture.outcome(secret, .status(.serviceUnavailable)) == "stale 2 s")
        let lines = recorder.rendered
        #expect(
            lines.contains(
                "warning request failed, answered stale age=2.500 s attempts=1 chain=AP8-HT503 endpoint=GET /tasks handler=StaleIfErrorHandler"
            ), "\(lines)")
        #expect(!lines.contains { $0.contains("secret") })
        #expect(!lines.contains { $0.hasPrefix("warning request failed attempts") })
        #expect(
            try metrics.expectCounter("rebound_stale_answers_total", [("handler", "StaleIfErrorHandler")]).totalValue
                == 1)
    }

    static func endpoint(_ path: String) -> Endpoint<[TaskItem], APIErrorCode> {
        Endpoint<[TaskItem], APIErrorCode>(.get, path, errorCode: .listTasksFailed).staleIfError(upTo: .seconds(60))
    }
}

/// Sets a header field on every request, as a credential handler does.
private struct SetsField: RecoverableErrorHandler {
    let name: HTTPField.Name
    let value: String

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    func prepare(_ request: inout HTTPRequest) async throws {
        request.headerFields[name] = value
    }
}

/// Answers every failed call with `body`, seven seconds old (none when `body` is `nil`).
private struct Answers: RecoverableErrorHandler {
    let name: String
    let body: String?

    var hooks: HandlerHooks { [.staleAnswer] }

    func recover(from failure: FailedAttempt) async throws -> RecoveryDecision { .cannotHandle }

    func staleAnswer(for call: FailedCall) -> StaleAnswer? {
        body.map {
            StaleAnswer(
                response: TransportResponse(head: HTTPResponse(status: .ok), body: Data($0.utf8)), age: .seconds(7))
        }
    }
}
