import Foundation
import HTTPTypes
import Rebound

/// The API layer: the marketplace's endpoints over Rebound's data manager, which recovers from
/// what it can (outages, expired tokens, captchas) before anything reaches the layers above.
struct TaskAPI: Sendable {
    struct Tokens: Decodable, Sendable {
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int
    }

    struct TaskItem: Decodable, Sendable {
        var id: Int
        var title: String
        var reward: Double
    }

    struct Answer: Decodable, Sendable {
        var answerId: Int
        var taskId: Int
    }

    struct Profile: Decodable, Sendable {
        var username: String
        var balance: Double
        var answers: Int
    }

    let manager: APIDataManager

    func login(username: String, password: String) async throws(TaskAPIError) -> Tokens {
        try await manager.send(
            .post(
                "/v1/login", json: ["username": username, "password": password], returning: Tokens.self,
                errorCode: TaskAPIErrorCode.loginFailed))
    }

    /// Sent by the auth handler itself, so it skips that handler (and the captcha handler: a
    /// refresh is never worth a person's time), and the breaker and the limiter: the calls waiting
    /// for the refresh must not have it refused or queued behind them.
    func refresh(_ refreshToken: String) async throws(TaskAPIError) -> Tokens {
        try await manager.send(
            Endpoint.post(
                "/v1/token/refresh", json: ["refreshToken": refreshToken], returning: Tokens.self,
                errorCode: TaskAPIErrorCode.refreshFailed
            ).skipping(
                .type(AuthRefreshHandler.self), .type(CaptchaRequiredHandler.self), .type(CircuitBreakerHandler.self),
                .type(AdaptiveRateLimitHandler.self)))
    }

    func listTasks() async throws(TaskAPIError) -> [TaskItem] {
        try await manager.send(
            .get("/v1/tasks", returning: [TaskItem].self, errorCode: TaskAPIErrorCode.listTasksFailed))
    }

    func task(_ id: Int) async throws(TaskAPIError) -> TaskItem {
        try await manager.send(
            .get("/v1/tasks/\(id)", returning: TaskItem.self, errorCode: TaskAPIErrorCode.getTaskFailed))
    }

    func submit(answer: String, to taskID: Int) async throws(TaskAPIError) -> Answer {
        try await manager.send(
            .post(
                "/v1/tasks/\(taskID)/answers", json: ["answer": answer], returning: Answer.self,
                errorCode: TaskAPIErrorCode.submitAnswerFailed))
    }

    /// Hedged: a profile that has not come after half a second is asked for again beside the
    /// first request, and the first answer wins (a GET may be sent twice). While the backend is
    /// down, the last profile seen in the past ten minutes, marked stale with its age
    /// (``APIResponse/staleness``).
    func profile() async throws(TaskAPIError) -> APIResponse<Profile> {
        try await manager.response(
            for: .get("/v1/profile", returning: Profile.self, errorCode: TaskAPIErrorCode.profileFailed)
                .hedged(HedgingPolicy(delay: .fixed(.milliseconds(500))))
                .staleIfError(upTo: .seconds(600)))
    }

    /// Sent by the captcha handler itself, so it skips that handler, and the breaker and the
    /// limiter, which must not refuse or queue the answer a person just gave.
    func verifyCaptcha(id: String, answer: String) async throws(TaskAPIError) {
        try await manager.send(
            Endpoint.post(
                "/v1/captcha/verify", json: ["id": id, "answer": answer],
                errorCode: TaskAPIErrorCode.verifyCaptchaFailed
            ).skipping(
                .type(CaptchaRequiredHandler.self), .type(CircuitBreakerHandler.self),
                .type(AdaptiveRateLimitHandler.self)))
    }
}
