import Foundation
import HTTPTypes
import ReboundTesting
import Testing

@testable import Rebound

/// `CaptchaRequiredHandler`: recognising the challenge, single flight, cancellation, failure and
/// the bound on captchas per request.
@Suite struct CaptchaRequiredHandlerTests {
    static let challenge = CaptchaChallenge(id: "c1", question: "2+3?")

    // MARK: - Recognising the challenge

    @Test func aChallengeIsSolvedVerifiedAndTheRequestRetried() async throws {
        let solver = FakeSolver()
        let verifier = FakeVerifier()
        let handler = CaptchaRequiredHandler(solver: solver, verifier: verifier)
        #expect(try await handler.recover(from: Self.failure()).isRetryNow)
        #expect(solver.challenges == [Self.challenge])
        #expect(verifier.answers.map(\.id) == ["c1"])
        #expect(verifier.answers.map(\.answer) == ["5"])
    }

    @Test func withoutAChallengeItCannotHandle() async throws {
        let solver = FakeSolver()
        let handler = CaptchaRequiredHandler(solver: solver, verifier: FakeVerifier())
        let forbidden = HTTPError(response: HTTPResponse(status: .forbidden))
        var missingID = BackendError(.captchaRequired, cause: forbidden)
        missingID.captchaChallenge = nil
        var otherCode = BackendError(.forbidden, cause: forbidden)
        otherCode.context[BackendErrorContextKey.captchaID] = "c1"
        let errors: [any Error] = [forbidden, BackendError(.forbidden, cause: forbidden), missingID, otherCode]
        for error in errors {
            #expect(try await handler.recover(from: Self.failure(error: error)).isCannotHandle)
        }
        let network = FailedAttempt(
            error: NetworkError(.timeout), request: Self.request, body: nil, response: nil, attempt: 1,
            timeLeft: .seconds(30), history: [])
        #expect(try await handler.recover(from: network).isCannotHandle)
        #expect(solver.calls == 0)
    }

    @Test func theChallengeIsFoundBelowOtherLayers() {
        let failure = Self.failure(error: APIError(.listTasksFailed, cause: Self.captchaError()))
        #expect(CaptchaRequiredHandler.challenge(in: failure) == Self.challenge)
    }

    @Test func requiredStatusesAreChecked() async throws {
        let solver = FakeSolver()
        let handler = CaptchaRequiredHandler(
            solver: solver, verifier: FakeVerifier(), configuration: .init(statuses: [429]))
        #expect(try await handler.recover(from: Self.failure(.forbidden)).isCannotHandle)
        #expect(solver.calls == 0)
        #expect(try await handler.recover(from: Self.failure(.tooManyRequests)).isRetryNow)
        #expect(solver.calls == 1)
    }

    @Test func aCustomMatcherFindsChallengesElsewhere() async throws {
        let captchaID = HTTPField.Name("X-Captcha-Id")!
        let solver = FakeSolver()
        let handler = CaptchaRequiredHandler(solver: solver, verifier: FakeVerifier()) { failure in
            failure.response?.head.headerFields[captchaID].map { CaptchaChallenge(id: $0) }
        }
        let head = HTTPResponse(status: .forbidden, headerFields: [captchaID: "h-7"])
        let failure = FailedAttempt(
            error: HTTPError(response: head), request: Self.request, body: nil, response: TransportResponse(head: head),
            attempt: 1, timeLeft: .seconds(30), history: [])
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(solver.challenges == [CaptchaChallenge(id: "h-7")])
        // The default matcher is not consulted any more.
        #expect(try await handler.recover(from: Self.failure()).isCannotHandle)
    }

    @Test func theDefaultsAreTheDocumentedOnes() {
        let configuration = CaptchaRequiredHandler.Configuration()
        #expect(configuration.statuses == nil)
        #expect(configuration.maxChallengesPerRequest == 2)
        #expect(configuration.answerTimeLimit == .seconds(600))
        #expect(CaptchaRequiredHandler.rememberedChallenges == 64)
    }

    // MARK: - Single flight

    @Test func aHundredConcurrentRequestsShareOneSolve() async throws {
        let gate = Gate()
        let solver = FakeSolver(gate: gate)
        let verifier = FakeVerifier()
        let handler = CaptchaRequiredHandler(solver: solver, verifier: verifier)
        let failure = Self.failure()

        let decisions = try await withThrowingTaskGroup(of: RecoveryDecision.self) { group in
            for _ in 0..<100 { group.addTask { try await handler.recover(from: failure) } }
            #expect(await eventually { handler.recoveriesWaiting(forChallenge: "c1") == 100 })
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(decisions.count == 100)
        #expect(decisions.allSatisfy { $0.isRetryNow })
        #expect(solver.calls == 1)
        #expect(verifier.answers.count == 1)

        // A request that meets the challenge after it was solved retries at once.
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(solver.calls == 1)
        // Another challenge is another flight.
        #expect(try await handler.recover(from: Self.failure(id: "c2")).isRetryNow)
        #expect(solver.calls == 2)
    }

    @Test(arguments: [CaptchaDismissalStyle.cancellationError, .captchaDismissed])
    func aDismissedCaptchaEndsEveryWaiterWithCaptchaCancelled(dismissal: CaptchaDismissalStyle) async throws {
        let gate = Gate()
        let solver = FakeSolver(gate: gate, failure: dismissal.error)
        let verifier = FakeVerifier()
        let handler = CaptchaRequiredHandler(solver: solver, verifier: verifier)
        let failure = Self.failure()

        let errors = await Self.recoverConcurrently(10, from: failure, with: handler) {
            #expect(await eventually { handler.recoveriesWaiting(forChallenge: "c1") == 10 })
            gate.open()
        }
        #expect(errors.count == 10)
        for error in errors {
            let recovery = error as? RecoveryError
            #expect(recovery?.code == .captchaCancelled)
            #expect(recovery?.chain.short == "RE20-BE20-HT403")
        }
        #expect(solver.calls == 1)
        #expect(verifier.answers.isEmpty)

        // Not remembered: the next request asks the person again.
        solver.failure = nil
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(solver.calls == 2)
    }

    /// A person who never answers (a dialog left open) ends the challenge at its time limit: its
    /// waiters fail with captchaFailed, and the challenge is free to be asked again.
    @Test func aCaptchaNobodyAnswersFailsAtItsTimeLimit() async throws {
        let clock = TestClock(mode: .manual)
        let gate = Gate()
        defer { gate.open() }
        let solver = FakeSolver(gate: gate)
        let verifier = FakeVerifier()
        let handler = CaptchaRequiredHandler(
            solver: solver, verifier: verifier, configuration: .init(answerTimeLimit: .seconds(60)))
        let failure = Self.failure(time: clock.timeSource)

        let waiting = Task { try await handler.recover(from: failure) }
        await solver.started.wait()
        try await clock.advance(by: .seconds(60), whenSleepersReach: 1)
        let error = await #expect(throws: RecoveryError.self) { try await waiting.value }
        #expect(error?.code == .captchaFailed)
        #expect(error?.chain.short == "RE21-RE2", "\(String(describing: error?.chain.short))")
        #expect(handler.recoveriesWaiting(forChallenge: "c1") == 0)
        #expect(verifier.answers.isEmpty)
    }

    @Test func aFailingSolverEndsWithCaptchaFailed() async throws {
        let solver = FakeSolver(failure: CaptchaServiceDown())
        let verifier = FakeVerifier()
        let handler = CaptchaRequiredHandler(solver: solver, verifier: verifier)
        let error = await #expect(throws: RecoveryError.self) { try await handler.recover(from: Self.failure()) }
        #expect(error?.code == .captchaFailed)
        #expect(error?.cause is CaptchaServiceDown)
        #expect(verifier.answers.isEmpty)
    }

    @Test func aRejectedAnswerEndsEveryWaiterWithCaptchaFailed() async throws {
        let gate = Gate()
        let solver = FakeSolver(gate: gate)
        let verifier = FakeVerifier(failure: WrongAnswer())
        let handler = CaptchaRequiredHandler(solver: solver, verifier: verifier)
        let failure = Self.failure()

        let errors = await Self.recoverConcurrently(10, from: failure, with: handler) {
            #expect(await eventually { handler.recoveriesWaiting(forChallenge: "c1") == 10 })
            gate.open()
        }
        #expect(errors.count == 10)
        for error in errors {
            let recovery = error as? RecoveryError
            #expect(recovery?.code == .captchaFailed)
            #expect(recovery?.cause is WrongAnswer)
        }
        #expect(solver.calls == 1)
        #expect(verifier.answers.count == 1)

        // A rejected answer does not count as solved.
        verifier.failure = nil
        #expect(try await handler.recover(from: failure).isRetryNow)
        #expect(solver.calls == 2)
    }

    @Test func aCancelledWaiterEndsWithCancellationNotCaptchaCancelled() async throws {
        let gate = Gate()
        let solver = FakeSolver(gate: gate)
        let handler = CaptchaRequiredHandler(solver: solver, verifier: FakeVerifier())
        let waiting = Task { try await handler.recover(from: Self.failure()) }
        await solver.started.wait()
        waiting.cancel()
        // Should cancelling not end the wait, the gate opens anyway: the test fails rather than hangs.
        let watchdog = Task {
            _ = await eventually { false }
            gate.open()
        }
        await #expect(throws: CancellationError.self) { try await waiting.value }
        watchdog.cancel()
        gate.open()
        #expect(try await handler.recover(from: Self.failure()).isRetryNow)
        #expect(solver.calls == 1)
    }

    // MARK: - Bounds

    @Test func captchasPerRequestAreBounded() async throws {
        let solver = FakeSolver()
        let handler = CaptchaRequiredHandler(solver: solver, verifier: FakeVerifier())
        let twice = Self.failure(id: "c3", recoveredBy: [handler.name, "BackendTemporaryErrorHandler", handler.name])
        let error = await #expect(throws: RecoveryError.self) { try await handler.recover(from: twice) }
        #expect(error?.code == .captchaAttemptsExhausted)
        #expect(error?.chain.contains(BackendErrorCode.captchaRequired) == true)
        #expect(solver.calls == 0)

        let once = Self.failure(id: "c3", recoveredBy: [handler.name, "BackendTemporaryErrorHandler"])
        #expect(try await handler.recover(from: once).isRetryNow)
        #expect(solver.calls == 1)

        let none = CaptchaRequiredHandler(
            solver: solver, verifier: FakeVerifier(), configuration: .init(maxChallengesPerRequest: 0))
        let refused = await #expect(throws: RecoveryError.self) { try await none.recover(from: Self.failure()) }
        #expect(refused?.code == .captchaAttemptsExhausted)
    }

    // MARK: - Through the pipeline

    @Test func throughThePipelineACaptchaIsSolvedAndTheRequestRetried() async throws {
        let payload =
            #"{"code":"captcha_required","message":"Prove you are human.","captcha":{"id":"c1","question":"2+3?"}}"#
        let transport = ScriptedTransport([
            .respond(status: .forbidden, body: Data(payload.utf8)),
            .respond(status: .ok, body: Data(#"{"done":true}"#.utf8)),
        ])
        let solver = FakeSolver()
        let verifier = FakeVerifier()
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: transport,
            handlers: [BackendTemporaryErrorHandler(), CaptchaRequiredHandler(solver: solver, verifier: verifier)],
            time: TestClock(mode: .manual).timeSource)

        let result = try await api.send(
            Endpoint<Submission, APIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed))
        #expect(result == Submission(done: true))
        #expect(solver.challenges == [Self.challenge])
        #expect(verifier.answers.map(\.id) == ["c1"])
        #expect(verifier.answers.map(\.answer) == ["5"])
        #expect(transport.requests.count == 2)
    }

    @Test func theAppGetsASignedChallengeWholeWhileTheErrorAndItsReportShowItScreened() async throws {
        // A signed image address and an identifier that both look like tokens.
        let signature = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg"
        let question = "https://captcha.example.com/c/81.png?sig=\(signature)"
        let id = "ch_4f9d2a7c1e8b3f6a0d5c9e2b7a1f4d8c"
        let payload = #"{"code":"captcha_required","captcha":{"id":"\#(id)","question":"\#(question)"}}"#
        let captcha = ScriptedTransport.Step.respond(status: .forbidden, body: Data(payload.utf8))
        let transport = ScriptedTransport([captcha, captcha])
        let solver = FakeSolver()
        let verifier = FakeVerifier()
        let handler = CaptchaRequiredHandler(
            solver: solver, verifier: verifier, configuration: .init(maxChallengesPerRequest: 1))
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: transport, handlers: [handler],
            time: TestClock(mode: .manual).timeSource)

        let error = await #expect(throws: APIError.self) {
            try await api.send(Endpoint<Submission, APIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed))
        }
        // The solver and the verifier got the challenge as the backend sent it.
        #expect(solver.challenges == [CaptchaChallenge(id: id, question: question)])
        #expect(verifier.answers.map(\.id) == [id])

        let failure = try #require(error)
        #expect(failure.chain.short == "AP8-RE22-BE20-HT403")
        let sink = RecordingReportSink()
        let reporter = ReportingFixture.reporter([sink])
        reporter.record(failure)
        await reporter.flush()
        let report = try #require(sink.reports.first)
        var dumped = ""
        dump(failure, to: &dumped)
        let renderings = [
            "\(failure)", String(reflecting: failure), failure.localizedDescription, failure.chain.debugDescription,
            String(decoding: try JSONEncoder().encode(failure.chain), as: UTF8.self),
            String(decoding: try JSONEncoder().encode(report), as: UTF8.self), dumped,
        ]
        for text in renderings {
            #expect(!text.contains(signature), "\(text)")
            #expect(!text.contains(id), "\(text)")
        }
        // Screened, not dropped: what is not secret stays for whoever investigates.
        #expect(failure.chain.debugDescription.contains("captcha.example.com/c/81.png?sig=<redacted>"))
        #expect(report.error.debugDescription.contains("captcha.example.com/c/81.png?sig=<redacted>"))
    }

    @Test func throughThePipelineAClosureHandlerReportsADismissal() async throws {
        let payload = #"{"code":"captcha_required","captcha":{"id":"c9"}}"#
        let transport = ScriptedTransport([.respond(status: .forbidden, body: Data(payload.utf8))])
        let captcha = CaptchaRequiredHandler(
            solve: { _ in throw CaptchaDismissed() },
            verify: { _, _ in Issue.record("nothing to verify") })
        let api = try APIDataManager(
            baseURL: "https://api.example.com", transport: transport, handlers: [captcha],
            time: TestClock(mode: .manual).timeSource)
        let error = await #expect(throws: APIError.self) {
            try await api.send(Endpoint<Submission, APIErrorCode>(.get, "/v1/tasks", errorCode: .listTasksFailed))
        }
        #expect(error?.chain.short == "AP8-RE20-BE20-HT403")
        #expect(transport.requests.count == 1)
    }

    // MARK: - Helpers

    static let request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/v1/tasks")

    static func captchaError(
        _ status: HTTPResponse.Status = .forbidden, id: String = "c1", question: String? = "2+3?"
    ) -> BackendError {
        var error = BackendError(
            .captchaRequired, cause: HTTPError(response: HTTPResponse(status: status)), reason: "Prove you are human.")
        error.captchaChallenge = CaptchaChallenge(id: id, question: question)
        return error
    }

    /// A failed attempt answered with `status` and a captcha (or `error`), after earlier attempts
    /// that `recoveredBy` recovered from.
    static func failure(
        _ status: HTTPResponse.Status = .forbidden,
        id: String = "c1",
        recoveredBy handlers: [String] = [],
        error: (any Error)? = nil,
        time: TimeSource = TestClock(mode: .manual).timeSource
    ) -> FailedAttempt {
        let history = handlers.enumerated().map { index, handler in
            AttemptRecord.failed(index + 1, status: status.code, handler: handler)
        }
        return FailedAttempt(
            error: error ?? captchaError(status, id: id), request: request, body: nil,
            response: TransportResponse(head: HTTPResponse(status: status)), attempt: history.count + 1,
            timeLeft: .seconds(30), history: history, time: time)
    }

    /// Recovers from `failure` in `count` tasks at once, runs `meanwhile`, and returns what each threw.
    static func recoverConcurrently(
        _ count: Int,
        from failure: FailedAttempt,
        with handler: CaptchaRequiredHandler,
        meanwhile: () async -> Void
    ) async -> [any Error] {
        await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        _ = try await handler.recover(from: failure)
                        Issue.record("the recovery should have failed")
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            await meanwhile()
            return await group.reduce(into: []) { errors, error in
                if let error { errors.append(error) }
            }
        }
    }
}

// MARK: - Doubles

/// How the person gets rid of the captcha.
enum CaptchaDismissalStyle: Sendable, CustomTestStringConvertible {
    case cancellationError, captchaDismissed

    var error: any Error {
        switch self {
        case .cancellationError: CancellationError()
        case .captchaDismissed: CaptchaDismissed()
        }
    }

    var testDescription: String {
        switch self {
        case .cancellationError: "CancellationError"
        case .captchaDismissed: "CaptchaDismissed"
        }
    }
}

private struct Submission: Codable, Equatable {
    var done: Bool
}

private struct CaptchaServiceDown: Error {}

private struct WrongAnswer: Error {}

/// A solver that answers "5" (or fails), optionally after a gate opens, and counts its calls.
private final class FakeSolver: CaptchaSolver {
    private struct State {
        var challenges: [CaptchaChallenge] = []
        var failure: (any Error)?
    }

    private let state: Locked<State>
    private let gate: Gate?
    /// Opens when the first call starts.
    let started = Gate()

    init(gate: Gate? = nil, failure: (any Error)? = nil) {
        self.gate = gate
        self.state = Locked(State(failure: failure))
    }

    var calls: Int { state.withLock { $0.challenges.count } }
    var challenges: [CaptchaChallenge] { state.withLock { $0.challenges } }
    var failure: (any Error)? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    func solve(_ challenge: CaptchaChallenge) async throws -> String {
        state.withLock { $0.challenges.append(challenge) }
        started.open()
        await gate?.wait()
        if let failure { throw failure }
        return "5"
    }
}

/// A verifier that records the answers it gets and accepts them (or fails).
private final class FakeVerifier: CaptchaVerifier {
    private struct State {
        var answers: [(id: String, answer: String)] = []
        var failure: (any Error)?
    }

    private let state: Locked<State>

    init(failure: (any Error)? = nil) {
        self.state = Locked(State(failure: failure))
    }

    var answers: [(id: String, answer: String)] { state.withLock { $0.answers } }
    var failure: (any Error)? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    func verify(_ challenge: CaptchaChallenge, answer: String) async throws {
        let failure = state.withLock { state in
            state.answers.append((challenge.id, answer))
            return state.failure
        }
        if let failure { throw failure }
    }
}
