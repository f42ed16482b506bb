import Foundation
import HTTPTypes
import Rebound
import ReboundTesting
import Testing

/// `BackendTemporaryErrorHandler`'s accounting with its `RetryBudget`: only successes earn tokens,
/// only retryable failures spend them.
@Suite struct BackendTemporaryErrorHandlerTests {
    static let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/tasks")

    /// Given a budget drained to 6 tokens, when the server answers with a status no retry fixes,
    /// then the handler leaves the request alone and the budget as it was: such an answer is
    /// neither a success nor a retryable failure (see `RetryBudget`).
    @Test(arguments: [404, 401, 422])
    func anAnswerNoRetryFixesNeitherEarnsNorSpendsTokens(code: Int) async throws {
        let budget = RetryBudget()
        for _ in 0..<4 { budget.recordFailure() }
        let handler = temporaryHandler(budget: budget)
        let head = HTTPResponse(status: HTTPResponse.Status(code: code))

        let decision = try await handler.recover(from: Self.failure(HTTPError(response: head), head: head))

        #expect(decision.isCannotHandle)
        #expect(budget.tokens == 6)
    }

    @Test func aCaptchaSentWith429NeitherEarnsNorSpendsTokens() async throws {
        let budget = RetryBudget()
        for _ in 0..<4 { budget.recordFailure() }
        let handler = temporaryHandler(budget: budget)
        let head = HTTPResponse(status: .tooManyRequests)
        var captcha = BackendError(.captchaRequired, cause: HTTPError(response: head))
        captcha.captchaChallenge = CaptchaChallenge(id: "c1")

        let decision = try await handler.recover(from: Self.failure(captcha, head: head))

        #expect(decision.isCannotHandle)
        #expect(budget.tokens == 6)
    }

    /// The bound `RetryBudget` and docs/recovery.md promise: against a backend that is down, fewer
    /// than 5 retries in all, however many answers that no retry fixes come in between.
    @Test func againstABackendThatIsDownAnswersOfMissingResourcesBuyNoExtraRetries() async throws {
        let transport = ScriptedTransport(
            Array(
                repeating: .reply { request, _ in
                    let status: HTTPResponse.Status = request.path == "/v1/tasks" ? .serviceUnavailable : .notFound
                    return TransportResponse(head: HTTPResponse(status: status))
                },
                count: 1_000))
        let api = try makeManager(transport, handlers: [temporaryHandler()], limits: RequestLimits(maxAttempts: 10))
        let missing = Endpoint<[TaskItem], APIErrorCode>(.get, "/tasks/404", errorCode: .listTasksFailed)
        let rounds = 20

        for _ in 0..<rounds {
            // 15 answers of 404 would refund 1.5 tokens if they counted as successes.
            for _ in 0..<15 { await #expect(throws: APIError.self) { try await api.send(missing) } }
            await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        }

        let overloaded = transport.requests.filter { $0.request.path == "/v1/tasks" }.count
        #expect(overloaded - rounds == 4, "retries in all: \(overloaded - rounds)")
    }

    @Test func aRequestTimeoutIsRetriedByDefaultAndA500IsNot() async throws {
        let transport = ScriptedTransport([.status(.requestTimeout), .tasks, .status(.internalServerError)])
        let api = try makeManager(transport, handlers: [temporaryHandler()])
        _ = try await api.send(SampleEndpoints.listTasks)
        #expect(transport.requests.count == 2)
        let error = await #expect(throws: APIError.self) { try await api.send(SampleEndpoints.listTasks) }
        #expect(error?.chain.short == "AP8-HT500")
    }

    @Test func thePresetsSayWhatTheyAreFor() async throws {
        #expect(BackendTemporaryErrorHandler.Configuration.default == .init())
        #expect(BackendTemporaryErrorHandler.Configuration.disabled.retryableStatuses.isEmpty)
        #expect(BackendTemporaryErrorHandler.Configuration.background.backoff == .background)
        #expect(Backoff.background.cap == .seconds(300))
        #expect(RequestLimits.singleAttempt.maxAttempts == 1)
        #expect(CaptchaRequiredHandler.Configuration.disabled.maxChallengesPerRequest == 0)

        let transport = ScriptedTransport([.status(.serviceUnavailable), .tasks])
        let disabled = BackendTemporaryErrorHandler(configuration: .disabled)
        let error = await #expect(throws: APIError.self) {
            try await makeManager(transport, handlers: [disabled]).send(SampleEndpoints.listTasks)
        }
        #expect(error?.chain.short == "AP8-HT503")
        #expect(transport.requests.count == 1)
    }

    /// A failed attempt of a GET answered with `head`.
    static func failure(_ error: any Error, head: HTTPResponse) -> FailedAttempt {
        FailedAttempt(
            error: error, request: request, body: nil, response: TransportResponse(head: head), attempt: 1,
            timeLeft: .seconds(30), history: [])
    }
}
